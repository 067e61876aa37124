/// Finds the name a user probably meant, for "did you mean" hints.
public enum Suggestion {
    /// The candidate closest to `name` by edit distance, if it is close enough to be a plausible typo.
    ///
    /// Like swift-argument-parser, a candidate qualifies when its distance is below 4 and below the length
    /// of the name, so short names are not "corrected" into unrelated ones (a one-letter name only gets a
    /// suggestion that differs in case). Case differences cost nothing
    /// extra beyond one edit each.
    /// - Parameters:
    ///   - name: What the user wrote.
    ///   - candidates: The names valid at that spot.
    /// - Returns: The best candidate, or `nil`.
    public static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let sameIgnoringCase = name.lowercased() == candidate.lowercased()
            let distance = editDistance(name.lowercased(), candidate.lowercased()) + (sameIgnoringCase ? 1 : 0)
            // Below the name's length, so 'x' is never "corrected" to 'a'; a case-only difference always counts.
            guard distance < 4, distance < name.count || sameIgnoringCase else { continue }
            // Ties go to the alphabetically first candidate, so the answer never depends on the order of a
            // dictionary's keys (environment variables, params).
            if let current = best, distance > current.distance || (distance == current.distance && candidate >= current.name) {
                continue
            }
            best = (candidate, distance)
        }
        return best?.name
    }

    /// The Levenshtein distance between two strings, over Unicode scalars.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
