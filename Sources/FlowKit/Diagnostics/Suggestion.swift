/// Finds the name a user probably meant, for "did you mean" hints.
package enum Suggestion {
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
    package static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        var best: (name: String, distance: Int)?
        let lowered = name.lowercased()
        let loweredScalars = Array(lowered.unicodeScalars)
        let limit = min(max(name.count / 3, 1), 3)
        for candidate in candidates where candidate != name {
            let loweredCandidate = candidate.lowercased()
            let sameIgnoringCase = lowered == loweredCandidate
            // Beyond `limit` a candidate never qualifies: the bounded distance stops early, so a workflow with
            // thousands of unknown names and thousands of candidates is not quadratic in their lengths too.
            let distance =
                sameIgnoringCase
                ? 1
                : editDistance(loweredScalars, Array(loweredCandidate.unicodeScalars), limit: limit)
            guard sameIgnoringCase || (distance <= limit && distance < name.count) else { continue }
            // Ties go to the alphabetically first candidate, so the answer never depends on the order of a
            // dictionary's keys (environment variables, params).
            if let current = best,
                distance > current.distance || (distance == current.distance && candidate >= current.name)
            {
                continue
            }
            best = (candidate, distance)
        }
        return best?.name
    }

    /// The optimal-string-alignment distance between two strings over Unicode scalars: insertions,
    /// deletions, substitutions and swaps of neighbours each cost one.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars), limit: .max)
    }

    /// The optimal-string-alignment distance, or some value above `limit` as soon as it is known to exceed it.
    ///
    /// Only the band of cells within `limit` of the diagonal is computed (a cell further out is at least its
    /// distance from the diagonal), and the table stops once two consecutive rows are all above the limit
    /// (every later cell builds on one of them): O(length × limit) instead of O(length²).
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        let limit = min(limit, max(a.count, b.count))
        let beyond = limit + 1  // stands for every value above the limit
        if abs(a.count - b.count) > limit { return beyond }
        var beforePrevious = [Int](repeating: beyond, count: b.count + 1)
        var previous = [Int](repeating: beyond, count: b.count + 1)
        for j in 0...min(limit, b.count) { previous[j] = j }
        var current = [Int](repeating: beyond, count: b.count + 1)
        var previousMinimum = 0
        for i in 1...a.count {
            let low = max(1, i - limit)
            let high = min(b.count, i + limit)
            // The cells either side of the band may hold values of an older row: mark them as beyond.
            current[low - 1] = low == 1 ? min(i, beyond) : beyond
            if high < b.count { current[high + 1] = beyond }
            var minimum = current[low - 1]
            for j in low...high {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                var cell = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    cell = min(cell, beforePrevious[j - 2] + 1)
                }
                current[j] = min(cell, beyond)
                minimum = min(minimum, current[j])
            }
            if minimum > limit, previousMinimum > limit { return beyond }
            previousMinimum = minimum
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
