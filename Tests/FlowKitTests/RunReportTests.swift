import FlowBasics
import Foundation
import TestSupport
import Testing

@testable import FlowKit

/// The report's one JSON form, streamed to a file node by node or kept in memory, read back the same.
@Suite struct RunReportTests {
    /// A node with every optional field set, so a property the streamed form forgets shows up.
    static let fullNode = RunReport.Node(
        id: "save[photos/a \"b\"\n.jpg]", task: "save", item: 1, type: "write", queue: "io", status: .failed,
        attempts: 2, code: "io",
        cause: "cannot write \"out/a.jpg\": No space left\non device\t\u{1}",
        location: "w.yaml:12:5", continueOnError: false,
        spans: [
            RunReport.Span(start: 0.25, end: 0.5, lane: 0, attempt: 1),
            RunReport.Span(start: 1.0, end: 1.5, lane: 3, attempt: 2),
        ], dependencies: [1], artifact: Artifact(path: "/out/a \"b\".jpg", preview: Data([0xFF, 0xD8, 0xFF, 0xE0])),
        key: "5e0f1c2d3b4a5e0f1c2d3b4a5e0f1c2d3b4a5e0f1c2d3b4a5e0f1c2d3b4a5e0f",
        missingInputs: ["fetch[photos/a \"b\"\n.jpg]", "fetch[\"2\"]"],
        warnings: ["16 extraneous bytes before marker 0xdb", "a \"quoted\"\nwarning"])

    static let report = RunReport(
        workflow: "gallery \"x\"", path: "w.yaml", startedAt: Date(timeIntervalSince1970: 1_800_000_000),
        duration: 1.75, interrupted: false,
        nodes: RunReport.Nodes([
            fullNode,
            RunReport.Node(
                id: "other", task: "other", type: "noop", queue: "default", status: .succeeded, attempts: 1, code: nil,
                cause: nil, location: nil, continueOnError: false,
                spans: [RunReport.Span(start: 0.001, end: 0.002, lane: 0, attempt: 1)]),
        ]),
        queueLimits: ["io": 4, "default": 2])

    @Test func theFileAndTheMemoryFormAreOneFormThatReadsBackWhole() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/run.json"
        try Self.report.write(toPath: path)
        let streamed = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(streamed == (try Self.report.jsonData()))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let fromStream = try decoder.decode(RunReport.self, from: streamed)
        let again = try fromStream.jsonData()
        #expect(
            again == streamed, "\(String(decoding: again, as: UTF8.self))\n\(String(decoding: streamed, as: UTF8.self))"
        )
        // The top level carries what readers need without recomputing.
        let object = try #require(try JSONSerialization.jsonObject(with: streamed) as? [String: Any])
        #expect(object["exitCode"] as? Int == 1)
        #expect(object["totals"] as? [String: Int] == ["failed": 1, "succeeded": 1])
        #expect(object["queues"] as? [String: Int] == ["io": 4, "default": 2])
        // Nothing but the report is left in the folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["run.json"])
    }

    @Test func everyPropertyOfANodeIsStreamed() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/run.json"
        try Self.report.write(toPath: path)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let first = try #require(((object as? [String: Any])?["nodes"] as? [[String: Any]])?.first)
        let properties = Set(Mirror(reflecting: Self.fullNode).children.compactMap(\.label))
        #expect(Set(first.keys) == properties)
    }

    /// `Self.report` with a task list: `save`'s record says what its node says, `other`'s names another queue.
    static var reportWithTasks: RunReport {
        var save = fullNode
        save.continueOnError = true
        var report = RunReport(
            workflow: Self.report.workflow, path: Self.report.path, startedAt: Self.report.startedAt,
            duration: Self.report.duration, interrupted: false,
            nodes: RunReport.Nodes([save, Self.report.nodes[1]]), queueLimits: Self.report.queueLimits)
        report.tasks = [
            RunReport.TaskRecord(
                id: "save", type: "write", queue: "io", dependsOn: [], location: "w.yaml:12:5", forEach: true,
                gather: false, continueOnError: true),
            RunReport.TaskRecord(
                id: "other", type: "noop", queue: "elsewhere", dependsOn: [], location: "w.yaml:3:3", forEach: false,
                gather: false),
        ]
        return report
    }

    @Test func aNodeLeavesToItsTaskRecordWhatTheRecordSays() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/run.json"
        try Self.reportWithTasks.write(toPath: path)
        let streamed = try Data(contentsOf: URL(fileURLWithPath: path))
        let object = try #require(try JSONSerialization.jsonObject(with: streamed) as? [String: Any])
        #expect(object["version"] as? Int == 2)
        let nodes = try #require(object["nodes"] as? [[String: Any]])
        let properties = Set(Mirror(reflecting: Self.fullNode).children.compactMap(\.label))
        #expect(Set(nodes[0].keys) == properties.subtracting(["type", "queue", "continueOnError"]))
        // A node whose task record says otherwise keeps its own fields.
        #expect(nodes[1]["queue"] as? String == "default" && nodes[1]["type"] as? String == "noop")
        let read = try RunReport(jsonData: streamed)
        #expect(read.nodes[0].type == "write" && read.nodes[0].queue == "io" && read.nodes[0].continueOnError)
        #expect(read.nodes[1].queue == "default" && !read.nodes[1].continueOnError)
        #expect(try canonical(read) == canonical(Self.reportWithTasks))
    }

    @Test func aNodeWithoutItsTaskFieldsOrATaskRecordIsADecodingError() {
        let json = """
            {"workflow": "w", "path": "w.yaml", "startedAt": "2026-11-01T10:00:00Z", "duration": 1.5,
             "interrupted": false, "queues": {"default": 2}, "tasks": [],
             "nodes": [{"id": "a", "task": "a", "status": "succeeded", "attempts": 1, "spans": []}]}
            """
        #expect(throws: DecodingError.self) { try RunReport(jsonData: Data(json.utf8)) }
    }

    @Test func aReportInAMissingFolderIsAnOSErrorAndLeavesNothing() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/missing/run.json"
        #expect(
            throws: FileWriteError(
                path: path, message: "cannot write '\(path)': No such file or directory")
        ) {
            try Self.report.write(toPath: path)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func theTraceHasOneSliceAPerAttemptAndALaneAPerSlot() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/trace.json"
        try ChromeTrace.write(Self.report, toPath: path)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let events = try #require((object as? [String: Any])?["traceEvents"] as? [[String: Any]])
        let slices = events.filter { $0["ph"] as? String == "X" }
        #expect(slices.compactMap { $0["name"] as? String } == [Self.fullNode.id, Self.fullNode.id, "other"])
        let lanes = events.filter { $0["name"] as? String == "thread_name" }
            .compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(lanes == ["io slot 1", "io slot 4", "default slot 1"])
    }

    @Test(arguments: [
        (0.0, "0"), (1.5, "1.5"), (0.000001, "0.000001"), (2.0000004, "2"), (-0.25, "-0.25"),
        (0.0288567589, "0.028857"), (12345.678901, "12345.678901"),
    ])
    func timesAreWrittenToTheMicrosecond(seconds: Double, text: String) throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/t.json"
        var stream = try JSONWriter(path: path)
        try stream.value(seconds: seconds)
        try stream.commit()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    /// The report's JSON, to compare two reports.
    private func canonical(_ report: RunReport) throws -> Data { try report.jsonData() }
}
