import FlowBasics

/// What went into the keys of some nodes of a plan, by node index, each node's inputs encoded as the journal holds
/// them (``NodeKeyInputs/encode(into:)``), one after another in one buffer.
///
/// A cold run keys and journals every node: kept as values, each node's inputs were an allocation of their own
/// and its arrays, copied and encoded again field by field when journaled. Kept encoded, a node costs two words,
/// its record copies bytes, and only what reads the inputs field by field (`--explain`, a revised key) decodes
/// them.
package struct KeyInputsByNode: Sendable, Equatable {
    /// How many nodes the table is of.
    private let count: Int
    /// For each node, where its inputs are in ``encoded``; empty for a node without (inputs never are). Made
    /// when the first node's inputs are set: an unchanged rerun keeps none. Each record and decision reads its
    /// node's: kept rather than found by stepping over the fields (``NodeKeyInputs/skip(_:)``).
    private var spans: [Range<Int>] = []
    private var encoded = ByteWriter()

    /// The most room made ahead for the nodes' inputs, in bytes.
    static let largestReservation = 256 << 20

    /// A table of `count` nodes holding none.
    init(count: Int) {
        self.count = count
    }

    /// Whether no node holds inputs.
    package var isEmpty: Bool { encoded.bytes.isEmpty }

    /// The inputs of a node, decoded; `nil` for one it holds none of.
    package subscript(index: Int) -> NodeKeyInputs? {
        get {
            encoded(index).flatMap { RecordedInputs.encoded($0).decoded }
        }
        set {
            if let newValue {
                set(index) { newValue.encode(into: &$0) }
            } else if !spans.isEmpty {
                spans[index] = 0..<0
            }
        }
    }

    /// The inputs of a node as the journal holds them; `nil` for one it holds none of.
    func encoded(_ index: Int) -> ArraySlice<UInt8>? {
        precondition(index >= 0 && index < count, "node \(index) of \(count)")
        guard !spans.isEmpty, !spans[index].isEmpty else { return nil }
        return encoded.bytes[spans[index]]
    }

    /// Sets a node's inputs to what `encode` appends: their fields in the journal's order, as
    /// ``NodeKeyInputs/encode(type:implementation:options:parameters:upstream:source:into:)`` writes them.
    mutating func set(_ index: Int, encoding encode: (inout ByteWriter) -> Void) {
        if spans.isEmpty {
            spans = [Range<Int>](repeating: 0..<0, count: count)
            // Room for every node's inputs at half again the first one's size: grown by doubling, a cold run's
            // buffer was copied a dozen times and touched twice its size. Room never used costs address space,
            // bounded all the same: a first node with a large parameter says little of the others.
            var first = ByteWriter()
            encode(&first)
            let (room, overflow) = first.bytes.count.multipliedReportingOverflow(by: count + count / 2)
            encoded.bytes.reserveCapacity(overflow ? Self.largestReservation : min(room, Self.largestReservation))
            encoded.bytes.append(contentsOf: first.bytes)
            spans[index] = 0..<encoded.bytes.count
            return
        }
        let start = encoded.bytes.count
        encode(&encoded)
        spans[index] = start..<encoded.bytes.count
    }

    /// Whether both hold the same inputs for the same nodes, wherever in their buffers.
    package static func == (lhs: KeyInputsByNode, rhs: KeyInputsByNode) -> Bool {
        lhs.count == rhs.count && (0..<lhs.count).allSatisfy { lhs.encoded($0) == rhs.encoded($0) }
    }

    /// The inputs of some of the nodes, by their new indices (as ``Plan/restricted(to:)`` numbers them).
    func restricted(to nodes: [Int]) -> KeyInputsByNode {
        var copy = KeyInputsByNode(count: nodes.count)
        for (newIndex, oldIndex) in nodes.enumerated() {
            guard let bytes = encoded(oldIndex) else { continue }
            copy.set(newIndex) { $0.bytes.append(contentsOf: bytes) }
        }
        return copy
    }
}
