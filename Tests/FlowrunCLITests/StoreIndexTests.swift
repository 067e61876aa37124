import Foundation
import Testing

@testable import FlowKit

/// The journal's index, through the built binary: a store without one (written by the flowrun before it) is read
/// and gets one; one that is damaged or of another journal is ignored without a word. Never a wrong `cached`.
@Suite struct StoreIndexTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.writeItems(["a", "b", "c"], in: scratch)
        try scratch.write("copy.yaml", Fixtures.copyingWorkflow())
    }

    var index: String { scratch.path(".flowrun/copy.yaml.index") }

    func run() async throws -> (result: Flowrun.Result, statuses: [String: String]) {
        let result = try await Child.runFlowrun(
            ["copy.yaml", "--no-progress", "--report", "run.json"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!result.terminatedBySignal)
        #expect(result.stderr.isEmpty, "the index is never worth a warning: \(result.stderr)")
        let report = try ReportView(scratch.path("run.json"))
        return (result, Dictionary(uniqueKeysWithValues: report.ids.map { ($0, report.status($0) ?? "") }))
    }

    func outputsAreAsWritten() throws {
        for name in ["a", "b", "c"] {
            #expect(try String(contentsOfFile: scratch.path("out/\(name).txt"), encoding: .utf8) == "item \(name)\n")
        }
    }

    static let allCached = [
        "read[in/a.txt]": "cached", "save[in/a.txt]": "cached", "read[in/b.txt]": "cached",
        "save[in/b.txt]": "cached", "read[in/c.txt]": "cached", "save[in/c.txt]": "cached",
    ]

    @Test func aStoreWithoutAnIndexIsReadAndGetsOne() async throws {
        _ = try await run()
        #expect(FileManager.default.fileExists(atPath: index))
        try FileManager.default.removeItem(atPath: index)
        try scratch.write("out/b.txt", "not what flowrun wrote\n")
        var expected = Self.allCached
        expected["read[in/b.txt]"] = "succeeded"  // the write reads what it fetches
        expected["save[in/b.txt]"] = "succeeded"
        #expect(try await run().statuses == expected)
        try outputsAreAsWritten()
        #expect(FileManager.default.fileExists(atPath: index), "the first run over the journal writes the index")
        #expect(try await run().statuses == Self.allCached)
    }

    @Test func aDamagedIndexIsIgnored() async throws {
        _ = try await run()
        let intact = try Data(contentsOf: URL(fileURLWithPath: index))
        var flipped = intact
        flipped[intact.count / 2] ^= 0x01
        for damaged in [intact.prefix(intact.count / 2), flipped, Data("flowrun index 1\n".utf8)] {
            try damaged.write(to: URL(fileURLWithPath: index))
            try scratch.write("out/a.txt", "not what flowrun wrote\n")
            var expected = Self.allCached
            expected["read[in/a.txt]"] = "succeeded"
            expected["save[in/a.txt]"] = "succeeded"
            #expect(try await run().statuses == expected)
            try outputsAreAsWritten()
        }
    }

    /// The index of the journal before `cache clean --keep-last` rewrote it, put back: of another journal. Its
    /// records say `b` is as first written; the journal says it was edited since.
    @Test func anIndexOfAnotherJournalIsIgnored() async throws {
        _ = try await run()
        let stale = try Data(contentsOf: URL(fileURLWithPath: index))
        try scratch.write("in/b.txt", "item b, edited\n")
        _ = try await run()
        let clean = try await Child.runFlowrun(["cache", "clean", "copy.yaml", "--keep-last"], in: scratch.url)
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
        try stale.write(to: URL(fileURLWithPath: index))
        #expect(try await run().statuses == Self.allCached)
        #expect(try String(contentsOfFile: scratch.path("out/b.txt"), encoding: .utf8) == "item b, edited\n")
    }
}
