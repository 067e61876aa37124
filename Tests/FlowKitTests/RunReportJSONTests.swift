import FlowKit
import FlowKitTesting
import Foundation
import Testing

/// What `--report` writes for `--html` and `flowrun report` to read back: the task list, node edges, failure
/// locations and the files nodes wrote, kept only when the run asks for previews.
@Suite struct RunReportJSONTests {
    /// Records a made-up file, with a preview when the run asks for one.
    struct ArtifactTask: TaskType {
        var name: String { "artifact" }
        var summary: String { "Records a file for tests." }
        var consumes: InputRequirement { .anything }
        var provides: ProviderKind? { nil }
        func makeOperation(_ context: NodeContext) -> FlowOperation { ArtifactOperation(context: context) }
    }

    final class ArtifactOperation: FlowOperation, @unchecked Sendable {
        override func execute() {
            record(Artifact(path: "/out/\(context.nodeID).jpg", preview: context.previews ? Data([0xFF, 0xD8]) : nil))
            finish(.success(nil))
        }
    }

    static let workflow = """
        version: 1
        name: edges
        tasks:
          make:
            type: artifact
            forEach: [a, b]
          broken: { type: fetch, url: /nonexistent/flowrun-report-test }
          after: { type: noop, dependsOn: broken }
          all: { type: noop, gather: true, dependsOn: make }
        """

    func run(previews: Bool) async throws -> RunReport {
        let plan = try TestWorkflow.plan(Self.workflow, registry: TaskRegistry.builtIn.adding(ArtifactTask()))
        return await Runner(plan: plan, options: RunOptions(previews: previews)).run()
    }

    @Test func theReportListsTasksEdgesLocationsAndArtifacts() async throws {
        let report = try await run(previews: true)
        #expect(report.tasks.map(\.id) == ["make", "broken", "after", "all"])
        #expect(report.tasks[0].forEach && !report.tasks[0].gather && report.tasks[3].gather)
        #expect(report.tasks[3].dependsOn == ["make"] && report.tasks[0].location == "test.yaml:4:3")
        let node = { (id: String) in report.nodes.first { $0.id == id } }
        #expect(node("all")?.dependencies.map { report.nodes[$0].id } == ["make[a]", "make[b]"])
        #expect(node("broken")?.status == .failed && node("broken")?.location == "test.yaml:7:3")
        #expect(node("after")?.status == .skipped && node("after")?.location == nil)
        #expect(node("make[b]")?.artifact == Artifact(path: "/out/make[b].jpg", preview: Data([0xFF, 0xD8])))
    }

    @Test func withoutPreviewsNoArtifactIsKept() async throws {
        let report = try await run(previews: false)
        #expect(report.nodes.allSatisfy { $0.artifact == nil })
    }

    @Test func aRunKeepsAtMostItsShareOfPreviews() async throws {
        let count = Artifact.maxPreviewsPerRun + 2
        let plan = try TestWorkflow.plan(
            "version: 1\ntasks:\n  make: { type: artifact, forEach: [\((0..<count).map(String.init).joined(separator: ", "))] }\n",
            registry: TaskRegistry.builtIn.adding(ArtifactTask()))
        let report = await Runner(plan: plan, options: RunOptions(previews: true)).run()
        #expect(report.nodes.filter { $0.artifact != nil }.count == count)
        #expect(report.nodes.filter { $0.artifact?.preview != nil }.count == Artifact.maxPreviewsPerRun)
    }

    @Test func aWrittenReportReadsBackWhole() async throws {
        let report = try await run(previews: true)
        let json = try report.jsonData()
        #expect(String(decoding: json, as: UTF8.self).contains(#""preview":"/9g=""#))
        let read = try RunReport(jsonData: json)
        #expect(try read.jsonData() == json)
    }

    @Test func aReportFromBeforeTheTaskListReadsWithThoseFieldsEmpty() throws {
        let old = """
            {"workflow": "w", "path": "w.yaml", "startedAt": "2026-11-01T10:00:00Z", "duration": 1.5,
             "interrupted": false, "exitCode": 0, "totals": {"succeeded": 1}, "queues": {"default": 2},
             "nodes": [{"id": "a", "task": "a", "type": "noop", "queue": "default", "status": "succeeded",
                        "attempts": 1, "start": 0.1, "end": 0.2, "continueOnError": false,
                        "spans": [{"start": 0.1, "end": 0.2, "lane": 0, "attempt": 1}]}]}
            """
        let report = try RunReport(jsonData: Data(old.utf8))
        #expect(report.tasks.isEmpty && report.nodes[0].dependencies.isEmpty && report.nodes[0].artifact == nil)
        #expect(report.nodes[0].duration == 0.1 && report.queueLimits == ["default": 2])
    }

    @Test func somethingElseIsADecodingError() {
        #expect(throws: DecodingError.self) { try RunReport(jsonData: Data(#"{"workflow": 3}"#.utf8)) }
    }
}
