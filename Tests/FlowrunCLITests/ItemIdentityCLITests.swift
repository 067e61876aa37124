import Foundation
import Testing

/// Nodes are named and remembered by their item's key: a collection that grows or is reordered reruns only
/// its new items, through the binary.
@Suite struct ItemIdentityCLITests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try scratch.write("in/b.txt", "B")
        try scratch.write("in/c.txt", "C")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              save: { type: write, path: "out/${item.name}", dependsOn: read }
            """)
    }

    private func run(_ arguments: [String] = []) throws -> Flowrun.Result {
        try Flowrun.run(["flow.yaml", "--no-progress"] + arguments, in: scratch.url)
    }

    @Test func anItemThatSortsFirstRunsOnlyItsOwnChain() throws {
        let cold = try run()
        #expect(cold.status == 0, "\(cold.stdout)\(cold.stderr)")
        #expect(cold.stdout.contains("4 nodes: 4 succeeded in "), "\(cold.stdout)")
        try scratch.write("in/a.txt", "A")
        let explained = try Flowrun.run(["explain", "flow.yaml", "save[in/a.txt]"], in: scratch.url)
        #expect(
            explained.stdout.hasPrefix(
                "save[in/a.txt] (key "), "\(explained.stdout)\(explained.stderr)")
        #expect(
            explained.stdout.contains(
                "runs: new item (no result recorded for this item: not run before, or it did not finish)"),
            "\(explained.stdout)")
        let grown = try run(["--verbose"])
        #expect(grown.status == 0, "\(grown.stdout)\(grown.stderr)")
        let lines = grown.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true)
        }
        let statuses = Dictionary(
            lines.filter { $0.count > 2 && $0[0].hasSuffix("]") }.map { (String($0[0]), String($0[1])) }
        ) {
            first, _ in first
        }
        #expect(
            statuses == [
                "read[in/a.txt]": "succeeded", "save[in/a.txt]": "succeeded",
                "read[in/b.txt]": "cached", "save[in/b.txt]": "cached", "read[in/c.txt]": "cached",
                "save[in/c.txt]": "cached",
            ], "\(grown.stdout)")
        #expect(try String(contentsOfFile: scratch.path("out/a.txt"), encoding: .utf8) == "A")
        // Removing the first item changes no other node's name: nothing runs.
        try FileManager.default.removeItem(atPath: scratch.path("in/a.txt"))
        let shrunk = try run()
        #expect(shrunk.stdout.contains("4 nodes: 4 cached"), "\(shrunk.stdout)")
    }

    @Test func awkwardKeysAreEscapedForTheTerminalAndKeptWholeInTheReport() throws {
        try scratch.write("in/new\nline.txt", "N")
        try scratch.write("in/it's \"quoted\" .. x.txt", "Q")
        let result = try run(["--report", "run.json", "--verbose"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("read[in/new\\nline.txt]"), "\(result.stdout)")
        #expect(result.stdout.contains("save[in/it's \"quoted\" .. x.txt]"), "\(result.stdout)")
        let report = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: scratch.path("run.json"))))
        let ids = ((report as? [String: Any])?["nodes"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(ids?.contains("read[in/new\nline.txt]") == true, "\(ids ?? [])")
        #expect(try String(contentsOfFile: scratch.path("out/new\nline.txt"), encoding: .utf8) == "N")
        let target = try run(["--target", "save[in/new\nline.txt]"])
        #expect(target.stdout.contains("2 nodes: 2 cached"), "\(target.stdout)")
    }
}
