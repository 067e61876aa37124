import Foundation
import Testing

@testable import FlowKit

/// A store written by an earlier flowrun, through the built binary: the journal of the format before items had
/// keys (nodes named by position, `save[1]`) is read — its results found by key, each node that changed run — and
/// a journal of an older format is a cold start with one warning. Never a crash, never a wrong `cached`.
@Suite struct OldStoreFormatTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.writeItems(["a", "b", "c"], in: scratch)
        try scratch.write("copy.yaml", Fixtures.copyingWorkflow())
    }

    var journal: String { scratch.path(".flowrun/copy.yaml.journal") }

    func run() async throws -> (result: Flowrun.Result, report: ReportView) {
        let result = try await Child.runFlowrun(
            ["copy.yaml", "--no-progress", "--report", "run.json"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!result.terminatedBySignal)
        return (result, try ReportView(scratch.path("run.json")))
    }

    /// Every node's status, by id.
    func statuses(_ report: ReportView) -> [String: String] {
        Dictionary(uniqueKeysWithValues: report.ids.map { ($0, report.status($0) ?? "") })
    }

    /// Rewrites the journal as flowrun wrote it before items had keys: the same records, each node and each
    /// upstream node named by its item's position (`read[in/b.txt]` → `read[1]`).
    func rewriteWithNodesNamedByPosition() throws {
        let positions = ["in/a.txt": 0, "in/b.txt": 1, "in/c.txt": 2]
        func byPosition(_ id: String) throws -> String {
            let open = try #require(id.firstIndex(of: "["), "\(id) is not an item's node")
            let item = String(id[id.index(after: open)..<id.index(before: id.endIndex)])
            return "\(id[..<open])[\(try #require(positions[item], "\(item) is not an item"))]"
        }
        let contents = Journal.read(atPath: journal)
        #expect(contents.damage == nil)
        #expect(contents.records.count == 6)
        var bytes = Journal.magic
        for record in contents.records {
            var inputs = try #require(record.inputs)
            for index in inputs.upstream.indices {
                inputs.upstream[index].node = try byPosition(inputs.upstream[index].node)
            }
            let old = JournalRecord(
                run: record.run, node: try byPosition(record.node), key: record.key, inputs: inputs,
                output: record.output, blob: record.blob)
            bytes += try #require(Journal.frame(old))
        }
        try Data(bytes).write(to: URL(fileURLWithPath: journal))
    }

    @Test func aJournalOfNodesNamedByPositionIsReadAndOnlyWhatChangedRuns() async throws {
        let cold = try await run()
        #expect(Set(statuses(cold.report).values) == ["succeeded"])
        try rewriteWithNodesNamedByPosition()
        #expect(
            Set(Journal.read(atPath: journal).records.map(\.node))
                == ["read[0]", "read[1]", "read[2]", "save[0]", "save[1]", "save[2]"])
        try scratch.write("in/b.txt", "item b, edited\n")
        try FileManager.default.removeItem(atPath: scratch.path("out/c.txt"))
        let over = try await run()
        #expect(over.result.stderr.isEmpty, "a journal of this format is read without a warning: \(over.result.stderr)")
        #expect(
            statuses(over.report) == [
                "read[in/a.txt]": "cached", "save[in/a.txt]": "cached",
                "read[in/b.txt]": "succeeded", "save[in/b.txt]": "succeeded",
                "read[in/c.txt]": "succeeded", "save[in/c.txt]": "succeeded",
            ])
        for (name, text) in [("a", "item a\n"), ("b", "item b, edited\n"), ("c", "item c\n")] {
            #expect(try String(contentsOfFile: scratch.path("out/\(name).txt"), encoding: .utf8) == text)
        }
        // The results are now recorded under the nodes' names: a plain rerun reuses all of them.
        let again = try await run()
        #expect(again.result.stderr.isEmpty, "\(again.result.stderr)")
        #expect(Set(statuses(again.report).values) == ["cached"])
    }

    @Test func aJournalOfAnOlderFormatIsAColdStartWithOneWarning() async throws {
        _ = try await run()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
        // The first journal format: another magic line, records this flowrun cannot read.
        try (Data("flowrun journal 1\n".utf8) + bytes.dropFirst(Journal.magic.count)).write(
            to: URL(fileURLWithPath: journal))
        try scratch.write("out/a.txt", "not what flowrun wrote\n")
        let over = try await run()
        let warnings = over.result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1, "\(over.result.stderr)")
        #expect(over.result.stderr.contains("not one this flowrun writes"), "\(over.result.stderr)")
        #expect(Set(statuses(over.report).values) == ["succeeded"], "nothing is cached on a journal not read")
        #expect(try String(contentsOfFile: scratch.path("out/a.txt"), encoding: .utf8) == "item a\n")
        let again = try await run()
        #expect(again.result.stderr.isEmpty, "\(again.result.stderr)")
        #expect(Set(statuses(again.report).values) == ["cached"])
    }
}
