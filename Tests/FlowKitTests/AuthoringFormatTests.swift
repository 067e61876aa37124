import Foundation
import TestSupport
import Testing

@testable import FlowKit

/// What keeps large workflows short: anchors and merge keys, `x-` keys, `defaults:`.
@Suite struct AuthoringFormatTests {
    private func plan(_ yaml: String) throws -> Plan {
        let result = TestTasks.load(yaml, path: "w.yaml")
        return try #require(result.plan, "\(TestTasks.render(result))")
    }

    private func task(_ id: String, in plan: Plan) throws -> TaskSpec {
        try #require(plan.workflow.tasks.first { $0.id.value == id })
    }

    @Test func mergeKeysCopyMapsEarlierFirstAndOwnKeysWin() throws {
        let plan = try plan(
            """
            version: 1
            x-io: &io { queue: io, retries: 2, timeout: 5s }
            x-patient: &patient { retries: 9, priority: high, timeout: 1m }
            queues: { io: { maxConcurrent: 2 } }
            tasks:
              a:
                timeout: 1s
                <<: [*io, *patient]
                type: sleep
                duration: 1ms
              b: { <<: *patient, type: noop }
            """)
        let a = try task("a", in: plan)
        #expect(a.queue?.value == "io")
        #expect(a.retries == 2, "of several merged maps the earlier wins")
        #expect(a.priority == .high)
        #expect(a.timeout == .seconds(1), "the task's own key wins even when written before '<<'")
        let b = try task("b", in: plan)
        #expect(b.retries == 9)
        #expect(b.timeout == .seconds(60))
    }

    @Test func aMergedValueIsLocatedWhereItIsWritten() throws {
        let result = TestTasks.load(
            """
            version: 1
            x-shared: &shared { intensity: 3 }
            tasks:
              tone: { <<: *shared, type: sepia }
            """, path: "w.yaml")
        #expect(result.plan == nil)
        let error = try #require(result.diagnostics.all.first { $0.message.contains("intensity") })
        #expect(error.location == SourceLocation(path: "w.yaml", line: 2, column: 32))
        #expect(error.notes.map(\.location) == [SourceLocation(path: "w.yaml", line: 4, column: 15)])
        #expect(error.notes.first?.message == "used through the alias '*shared' here")
    }

    @Test func aDuplicateKeyNextToAMergeIsStillADuplicate() {
        let result = TestTasks.load(
            """
            version: 1
            x-a: &a { retries: 1 }
            tasks:
              t: { <<: *a, type: noop, type: noop }
            """, path: "w.yaml")
        #expect(result.diagnostics.all.map(\.message).contains("duplicate key 'type'"))
    }

    @Test func xKeysAreIgnoredAndOtherUnknownKeysAreNot() {
        let result = TestTasks.load(
            "version: 1\nx-anything: { whatever: [1, 2] }\ntaks: {}\ntasks: { a: { type: noop } }")
        #expect(result.diagnostics.all.map(\.message) == ["unknown key 'taks' in the workflow"])
    }

    @Test func defaultsApplyToEveryTaskThatDoesNotOverrideThem() throws {
        let plan = try plan(
            """
            version: 1
            queues: { cpu: { maxConcurrent: 1 } }
            tasks:
              fetch: { type: fetch, url: a.jpg, queue: default, retries: 0 }
              decode: { type: decode, dependsOn: fetch }
              tone: { type: sepia, dependsOn: decode }
              mild: { type: sepia, dependsOn: decode, intensity: 0.2 }
            defaults:
              queue: cpu
              retries: 3
              timeout: 10s
              sepia: { intensity: 0.6 }
            """)
        #expect(try task("fetch", in: plan).queueName == "default")
        #expect(try task("fetch", in: plan).retries == 0)
        #expect(try task("decode", in: plan).queueName == "cpu")
        #expect(try task("decode", in: plan).retries == 3)
        #expect(try task("decode", in: plan).timeout == .seconds(10))
        let tone = try #require(plan.nodes.first { $0.id == "tone" })
        let mild = try #require(plan.nodes.first { $0.id == "mild" })
        #expect(plan.parameters(of: tone)["intensity"]?.doubleValue == 0.6)
        #expect(plan.parameters(of: mild)["intensity"]?.doubleValue == 0.2)
    }

    @Test func aPipelineIsImportedAsAGroupWithItsOwnParams() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipelines-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("lib"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
        version: 1
        params: { strength: 0.8 }
        tasks:
          decode: { type: decode }
          tone: { type: sepia, intensity: "${params.strength}", dependsOn: decode }
        """.write(to: folder.appendingPathComponent("lib/tone.yaml"), atomically: true, encoding: .utf8)
        try """
        version: 1
        params: { mild: 0.2 }
        tasks:
          fetch: { type: fetch, url: a.jpg }
          soft: { uses: lib/tone.yaml, with: { strength: "${params.mild}" }, dependsOn: fetch }
          strong: { uses: lib/tone.yaml, dependsOn: fetch }
          save: { type: write, path: out.jpg, dependsOn: [soft, strong], input: strong }
        """.write(to: folder.appendingPathComponent("w.yaml"), atomically: true, encoding: .utf8)
        let result = TestTasks.loader().plan(path: folder.path + "/w.yaml")
        let plan = try #require(result.plan, "\(TestTasks.render(result))")
        #expect(
            plan.workflow.tasks.map(\.id.value) == [
                "fetch", "soft.decode", "soft.tone", "strong.decode", "strong.tone", "save",
            ])
        #expect(try task("soft.decode", in: plan).dependsOn.map(\.value) == ["fetch"])
        #expect(try task("save", in: plan).dependsOn.map(\.value) == ["soft.tone", "strong.tone"])
        #expect(try task("save", in: plan).input?.value == "strong.tone")
        let soft = try #require(plan.nodes.first { $0.id == "soft.tone" })
        let strong = try #require(plan.nodes.first { $0.id == "strong.tone" })
        #expect(plan.parameters(of: soft)["intensity"]?.doubleValue == 0.2)
        #expect(plan.parameters(of: strong)["intensity"]?.doubleValue == 0.8)
        #expect(plan.workflow.groups.map(\.id) == ["soft", "strong"])
    }

    @Test func runIfAndRetryOnAreRead() throws {
        let plan = try plan(
            """
            version: 1
            defaults: { runIf: always }
            tasks:
              get: { type: fetch, url: a.jpg, retries: 1, retryOn: [transient, status: [404, 410]], runIf: success }
              after: { type: noop, dependsOn: get }
            """)
        #expect(try task("get", in: plan).runIf == .success)
        #expect(try task("get", in: plan).retryOn == RetryRule([.transient, .status([404, 410])]))
        #expect(try task("after", in: plan).runIf == .always)
    }
}

/// Diagnostics of workflows that import pipelines: each `Fixtures/pipelines/<case>.yaml` (its pipelines in
/// `lib/`) must render as `<case>.expected`, with paths relative to the fixtures folder.
/// `RECORD_GOLDENS=1` rewrites the `.expected` files, as for ``DiagnosticsGoldenTests``.
@Suite struct PipelineDiagnosticsGoldenTests {
    static let cases: [String] = {
        guard
            let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil)?.appendingPathComponent(
                "pipelines"),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return names.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }()

    @Test func everyKindOfPipelineMistakeHasAFixture() {
        #expect(Self.cases == ["error-inside-pipeline", "include-cycle", "unknown-with-param"])
    }

    @Test(arguments: cases)
    func rendersExactly(_ name: String) throws {
        let folder = try Fixtures.bundled.appendingPathComponent("pipelines").path
        let result = TestTasks.loader().plan(path: folder + "/\(name).yaml")
        #expect(result.plan == nil)
        let rendered = TestTasks.render(result).replacingOccurrences(of: folder + "/", with: "")
        let expected = try Golden.expected(
            for: rendered, at: Fixtures.source.appendingPathComponent("pipelines/\(name).expected"),
            readFrom: Fixtures.bundled.appendingPathComponent("pipelines/\(name).expected"))
        #expect(rendered == expected)
    }
}
