import Foundation
import Testing

@testable import FlowKit

/// A `forEach` item is known by a key — a file item by its path, text by itself, a map by its `key:` field or
/// its canonical text — and its nodes are named `task[KEY]`, whatever the item's position.
@Suite struct ItemKeyTests {
    private func ids(_ yaml: String) throws -> [String] {
        let result = TestTasks.load(yaml)
        return try #require(result.plan, "\(TestTasks.render(result))").nodes.map(\.id)
    }

    private func messages(_ yaml: String) -> String {
        let result = TestTasks.load(yaml)
        #expect(result.plan == nil)
        return DiagnosticRenderer(sources: [:]).render(result.diagnostics)
    }

    @Test func textItemsAreTheirOwnKeysAndTheIndexStaysAvailable() throws {
        let result = TestTasks.load(
            """
            version: 1
            tasks:
              each: { type: command, forEach: [b.jpg, "a b/c's \\"d\\".jpg", ../up.jpg], argv: [echo, "${item.index}"] }
            """)
        let plan = try #require(result.plan, "\(TestTasks.render(result))")
        #expect(plan.nodes.map(\.id) == ["each[b.jpg]", #"each[a b/c's "d".jpg]"#, "each[../up.jpg]"])
        #expect(plan.nodes.map { plan.parameters(of: $0)["argv"]?.listValue?.last } == [.int(0), .int(1), .int(2)])
    }

    @Test func mapItemsAreKnownByTheirKeyFieldOrTheirCanonicalText() throws {
        #expect(
            try ids(
                """
                version: 1
                tasks:
                  each: { type: noop, forEach: { list: [{ name: beta, n: 1 }, { name: alpha, n: 2 }], key: name } }
                """) == ["each[beta]", "each[alpha]"])
        // Without a key field, the map's text with its keys sorted: written either way, one item.
        #expect(
            try ids(
                """
                version: 1
                tasks:
                  each: { type: noop, forEach: [{ n: 1, b: x }, { b: y, n: 2 }] }
                """) == ["each[{b: x, n: 1}]", "each[{b: y, n: 2}]"])
    }

    @Test func twoItemsWithOneKeyAreAnErrorNamingBoth() {
        #expect(
            messages(
                """
                version: 1
                tasks:
                  each: { type: noop, forEach: [a.jpg, b.jpg, a.jpg] }
                """) == """
                    test.yaml:3:47: error: items 0 and 2 of the 'forEach' of task 'each' have one key 'a.jpg'
                        hint: an item is known by its key across runs; give map items a distinct 'key:' field, or drop one
                    test.yaml:3:33: note: item 0 is here

                    """)
        #expect(
            messages(
                """
                version: 1
                tasks:
                  each: { type: noop, forEach: { list: [{ n: 1 }, { n: 1, other: true }], key: n } }
                """) == """
                    test.yaml:3:51: error: items 0 and 1 of the 'forEach' of task 'each' have one key '1'
                        hint: an item is known by its key across runs; give map items a distinct 'key:' field, or drop one
                    test.yaml:3:41: note: item 0 is here

                    """)
    }

    @Test func duplicateLinesOfAListFileAreNamedByLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("a.jpg\n# a comment\nb.jpg\n a.jpg \n".utf8).write(to: folder.appendingPathComponent("list.txt"))
        try Data("version: 1\ntasks:\n  each: { type: noop, forEach: { file: list.txt } }\n".utf8)
            .write(to: folder.appendingPathComponent("flow.yaml"))
        let result = TestTasks.loader().plan(path: folder.appendingPathComponent("flow.yaml").path)
        #expect(result.plan == nil)
        let list = folder.appendingPathComponent("list.txt").path
        #expect(
            result.diagnostics.all.map { "\($0.location?.description ?? ""): \($0.message)" } == [
                "\(list):4:1: items 0 and 2 of the 'forEach' of task 'each' have one key 'a.jpg'"
            ])
        #expect(result.diagnostics.all.first?.notes.first?.location?.description == "\(list):1:1")
    }

    @Test func aKeyFieldEveryItemMustHave() {
        #expect(
            messages(
                """
                version: 1
                tasks:
                  each: { type: noop, forEach: { list: [{ name: a }, { title: b }], key: name } }
                """) == """
                    test.yaml:3:54: error: item 1 of the list has no 'name' to be known by: {title: b}
                        hint: 'key: name' names a field every map item has, with text or a number

                    """)
    }

    @Test(arguments: [
        (
            "{ glob: a.jpg, key: x }",
            "test.yaml:3:52: error: 'key' applies to 'forEach.list'; a file or glob item is known by its path"
        ),
        ("{ list: [a], file: x.txt }", "test.yaml:3:32: error: 'forEach.list' goes with 'key' alone"),
        (
            "{ list: 3 }",
            "test.yaml:3:40: error: 'forEach.list' must be a list or a ${params.NAME} reference, found an integer"
        ),
        ("{ key: x }", "test.yaml:3:32: error: 'forEach' needs 'list', 'file', 'glob' or 'from'"),
    ])
    func misplacedListAndKeyAreErrors(_ forEach: String, _ first: String) {
        let text = messages("version: 1\ntasks:\n  each: { type: noop, forEach: \(forEach) }\n")
        #expect(text.hasPrefix(first), "\(text)")
    }
}
