/// What went into the keys of some nodes of a plan, by node index: a flat table of positions into the inputs
/// kept, so a lookup is one array read, not a hash of the index, and a node without inputs costs one word.
package struct KeyInputsByNode: Sendable, Equatable {
    /// For each node, the position of its inputs in ``kept``, or -1.
    private var positions: [Int]
    private var kept: [NodeKeyInputs] = []

    /// A table of `count` nodes holding none.
    init(count: Int) {
        positions = [Int](repeating: -1, count: count)
    }

    /// Whether no node holds inputs.
    package var isEmpty: Bool { kept.isEmpty }

    /// The inputs of a node; `nil` for one it holds none of.
    package subscript(index: Int) -> NodeKeyInputs? {
        get {
            let position = positions[index]
            return position < 0 ? nil : kept[position]
        }
        set {
            let position = positions[index]
            switch (newValue, position < 0) {
            case (let inputs?, true):
                positions[index] = kept.count
                kept.append(inputs)
            case (let inputs?, false): kept[position] = inputs
            // A node's inputs are set once, in plan order: one that drops them leaves a hole, not a move.
            case (nil, false): positions[index] = -1
            case (nil, true): break
            }
        }
    }

    /// Whether both hold the same inputs for the same nodes, whatever order they were set in.
    package static func == (lhs: KeyInputsByNode, rhs: KeyInputsByNode) -> Bool {
        lhs.positions.count == rhs.positions.count && lhs.positions.indices.allSatisfy { lhs[$0] == rhs[$0] }
    }

    /// The inputs of some of the nodes, by their new indices (as ``Plan/restricted(to:)`` numbers them).
    func restricted(to nodes: [Int]) -> KeyInputsByNode {
        var copy = KeyInputsByNode(count: nodes.count)
        for (newIndex, oldIndex) in nodes.enumerated() { copy[newIndex] = self[oldIndex] }
        return copy
    }
}
