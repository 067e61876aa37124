import Foundation
import Testing

/// A rerun of more items than the store reads ahead on every core (``UpToDate/FileStamps`` in FlowKit), through
/// the built binary: what changed runs, and only that.
@Suite struct StampReadAheadTests {
    @Test func anEditedSourceAndADeletedOrEditedOutputRunAmongTwoThousandFiveHundredCached() async throws {
        let scratch = try Scratch()
        let names = (0..<2500).map { String(format: "f%04d", $0) }
        try Fixtures.writeItems(names, in: scratch)
        try scratch.write("copy.yaml", Fixtures.copyingWorkflow())
        func run() async throws -> [String: String] {
            let result = try await Child.runFlowrun(
                ["copy.yaml", "--no-progress", "--quiet", "--report", "run.json"], in: scratch.url)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let report = try ReportView(scratch.path("run.json"))
            var notCached: [String: String] = [:]
            for id in report.ids where report.status(id) != "cached" { notCached[id] = report.status(id) ?? "" }
            return notCached
        }
        #expect(try await run().count == 5000)
        #expect(try await run() == [:])
        try scratch.write("in/f0100.txt", "item f0100, edited\n")
        try FileManager.default.removeItem(atPath: scratch.path("out/f1200.txt"))
        try scratch.write("out/f2400.txt", "not what flowrun wrote\n")
        #expect(
            try await run() == [
                "read[in/f0100.txt]": "succeeded", "save[in/f0100.txt]": "succeeded",
                "read[in/f1200.txt]": "succeeded", "save[in/f1200.txt]": "succeeded",
                "read[in/f2400.txt]": "succeeded", "save[in/f2400.txt]": "succeeded",
            ])
        #expect(try String(contentsOfFile: scratch.path("out/f0100.txt"), encoding: .utf8) == "item f0100, edited\n")
        #expect(try String(contentsOfFile: scratch.path("out/f1200.txt"), encoding: .utf8) == "item f1200\n")
        #expect(try String(contentsOfFile: scratch.path("out/f2400.txt"), encoding: .utf8) == "item f2400\n")
        #expect(try await run() == [:])
    }
}
