import FlowBasics
import Testing

@testable import FlowKit

/// The inputs of the nodes' keys, kept encoded one after another (``KeyInputsByNode``): what a node's record
/// copies, and what `--explain` decodes.
@Suite struct KeyInputsByNodeTests {
    static func inputs(_ item: String, upstream: [NodeKeyInputs.Upstream] = [], source: String? = nil)
        -> NodeKeyInputs
    {
        NodeKeyInputs(
            type: "fetch", implementation: "1", options: ["optimize=true"],
            parameters: [.init(name: "url", value: "\"\(item)\"")], upstream: upstream, source: source)
    }

    /// Each node reads back what was set for it, field by field and as the journal encodes it; a node set
    /// again reads its new inputs, one cleared or never set reads none.
    @Test func eachNodeReadsBackItsOwnInputs() throws {
        let first = Self.inputs("a/1.jpg", source: "file a/1.jpg size 3 mtime 1 inode 2")
        let second = Self.inputs(
            "b \"quoted\"\n.jpg", upstream: [.init(node: "read[a/1.jpg]", key: first.key)], source: nil)
        var table = KeyInputsByNode(count: 4)
        #expect(table.isEmpty)
        table[0] = first
        table[2] = second
        #expect(!table.isEmpty)
        #expect(table[0] == first)
        #expect(table[1] == nil)
        #expect(table[2] == second)
        #expect(table[3] == nil)
        var encoded = ByteWriter()
        second.encode(into: &encoded)
        #expect(table.encoded(2).map(Array.init) == encoded.bytes)
        #expect(table.encoded(1) == nil)

        let replaced = Self.inputs("a/2.jpg")
        table[0] = replaced
        #expect(table[0] == replaced)
        #expect(table[2] == second)
        table[2] = nil
        #expect(table[2] == nil)
        #expect(table.encoded(2) == nil)
    }

    /// Two tables holding the same inputs for the same nodes are equal, whatever order they were set in; a
    /// restriction renumbers the nodes it keeps and drops the rest.
    @Test func equalityIgnoresTheOrderOfSettingAndRestrictionRenumbers() {
        let inputs = (0..<3).map { Self.inputs("photo \($0).jpg") }
        var forward = KeyInputsByNode(count: 3)
        var backward = KeyInputsByNode(count: 3)
        for index in 0..<3 { forward[index] = inputs[index] }
        for index in (0..<3).reversed() { backward[index] = inputs[index] }
        #expect(forward == backward)
        backward[1] = Self.inputs("another.jpg")
        #expect(forward != backward)

        let restricted = forward.restricted(to: [2, 0])
        #expect(restricted[0] == inputs[2])
        #expect(restricted[1] == inputs[0])
        var expected = KeyInputsByNode(count: 2)
        expected[0] = inputs[2]
        expected[1] = inputs[0]
        #expect(restricted == expected)
    }
}
