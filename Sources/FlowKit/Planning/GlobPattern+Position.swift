extension GlobPattern {
    /// Where a walk stands in the pattern after some folders: the pattern segments each alternative may match
    /// next, as bits. A lister keeps one per folder and steps it by each entry's name
    /// (``position(_:after:)``), so matching a tree costs one step per entry, whatever its depth.
    package struct Position: Sendable, Hashable {
        /// Bit `i` of an alternative's mask: its first `i` segments are matched. The first alternative's is held
        /// in place, the others' in an array: stepping a pattern without `{…}` by each of 100,000 names makes no
        /// array.
        private var firstMask: UInt64
        private var otherMasks: [UInt64]
        /// How many path segments were read: letters fold only past the base.
        fileprivate var depth: Int

        /// Every alternative's segments, with the end state, fit one mask.
        static let maxSegments = 64

        fileprivate init(masks: [UInt64], depth: Int) {
            firstMask = masks.first ?? 0
            otherMasks = Array(masks.dropFirst())
            self.depth = depth
        }

        /// The mask of the alternative at `index`.
        fileprivate subscript(index: Int) -> UInt64 {
            get { index == 0 ? firstMask : otherMasks[index - 1] }
            set {
                if index == 0 { firstMask = newValue } else { otherMasks[index - 1] = newValue }
            }
        }

        /// Whether nothing can match any more, here or below.
        package var isDead: Bool { firstMask == 0 && otherMasks.allSatisfy { $0 == 0 } }
    }

    /// Where a walk starts: before the first segment of a path (for an absolute pattern, its root "").
    package var start: Position {
        Position(masks: alternatives.map { closure(1, in: $0) }, depth: 0)
    }

    /// The position after one more path segment: a folder's or file's name.
    package func position(_ position: Position, after name: Substring) -> Position {
        let candidate = ignoreCase && position.depth >= baseSegmentCount ? Substring(name.lowercased()) : name
        var next = position
        next.depth += 1
        for (index, pattern) in alternatives.enumerated() {
            var current = position[index]
            var reached: UInt64 = 0
            while current != 0 {
                let state = current.trailingZeroBitCount
                current &= current - 1
                guard state < pattern.count else { continue }
                switch pattern[state] {
                case .anyDepth:
                    if !name.hasPrefix(".") { reached |= 1 << state }
                case let segment:
                    if segment.matches(candidate) { reached |= 1 << (state + 1) }
                }
            }
            next[index] = reached == 0 ? 0 : closure(reached, in: pattern)
        }
        return next
    }

    /// Whether the path read so far matches.
    package func accepts(_ position: Position) -> Bool {
        alternatives.indices.contains { position[$0] & (1 << alternatives[$0].count) != 0 }
    }

    /// Whether a folder at this position may hold matches below it.
    package func mayMatchBelow(_ position: Position) -> Bool {
        alternatives.indices.contains { position[$0] & ((1 << alternatives[$0].count) - 1) != 0 }
    }

    /// `mask` plus every state a `**` may skip to by matching no folder.
    private func closure(_ mask: UInt64, in pattern: [Segment]) -> UInt64 {
        var result = mask
        var state = 0
        while state < pattern.count {
            if result & (1 << state) != 0, case .anyDepth = pattern[state] { result |= 1 << (state + 1) }
            state += 1
        }
        return result
    }
}
