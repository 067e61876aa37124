/// Finds the name a user probably meant, for "did you mean" hints.
public enum Suggestion {
    /// The candidate closest to `name` by edit distance, if it is close enough to be a plausible typo.
    ///
    /// A candidate qualifies when its distance is at most a third of the name's length (at least 1, at
    /// most 3), so short names are not "corrected" into unrelated ones (`name` is not `type`). A candidate
    /// that differs only in case always qualifies.
    /// - Parameters:
    ///   - name: What the user wrote.
    ///   - candidates: The names valid at that spot.
    /// - Returns: The best candidate, or `nil`.
    public static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let distance = editDistance(name.lowercased(), candidate.lowercased())
                + (name.lowercased() == candidate.lowercased() ? 1 : 0)
            guard distance <= min(max(name.count / 3, 1), 3) else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
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
