/// Finds the name a user probably meant, for "did you mean" hints.
public enum Suggestion {
    /// The candidate closest to `name` by edit distance, if it is close enough to be a plausible typo.
    ///
    /// Distance counts a swap of two neighbouring letters as one edit (`fecth` → `fetch`). A candidate
    /// qualifies when its distance is at most a third of the name's length (at least 1, at most 3) and below
    /// the length, so short names are not "corrected" into unrelated ones (`name` is not `type`, `x` is not
    /// `a`). A candidate that differs only in case always qualifies.
    /// - Parameters:
    ///   - name: What the user wrote.
    ///   - candidates: The names valid at that spot.
    /// - Returns: The best candidate, or `nil`.
    public static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let sameIgnoringCase = name.lowercased() == candidate.lowercased()
            let distance = editDistance(name.lowercased(), candidate.lowercased()) + (sameIgnoringCase ? 1 : 0)
            guard sameIgnoringCase || (distance <= min(max(name.count / 3, 1), 3) && distance < name.count) else { continue }
            // Ties go to the alphabetically first candidate, so the answer never depends on the order of a
            // dictionary's keys (environment variables, params).
            if let current = best, distance > current.distance || (distance == current.distance && candidate >= current.name) {
                continue
            }
            best = (candidate, distance)
        }
        return best?.name
    }

    /// The optimal-string-alignment distance between two strings over Unicode scalars: insertions,
    /// deletions, substitutions and swaps of neighbours each cost one.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
