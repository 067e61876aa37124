import FlowKit
import FlowKitTesting
import Foundation
import Testing

/// `runIf`: cleanup, contact sheets and notifications that run after failures, and the default that skips.
@Suite struct RunConditionTests {
    let registry = TaskRegistry.builtIn.adding(ProbeTask(recorder: ProbeRecorder()))

    func run(_ tasks: String) async throws -> RunReport {
        let yaml = "version: 1\ntasks:\n" + tasks
        return await Runner(plan: try TestWorkflow.plan(yaml, registry: registry), options: RunOptions()).run()
    }

    /// Three items known by `n`, the second (`n: 2`) fails; `after` depends on every item's pipeline end with the given condition.
    func itemsWithOneFailure(then condition: String) async throws -> RunReport {
        try await run(
            """
              work:
                type: probe
                forEach: { list: [{ n: 1, b: succeed }, { n: 2, b: fail }, { n: 3, b: succeed }], key: n }
                behavior: "${item.b}"
              next: { type: noop, dependsOn: work }
              after: { type: noop, gather: true, dependsOn: next, runIf: \(condition) }
              notify: { type: noop, dependsOn: after }
            """)
    }

    @Test func byDefaultAFailureSkipsTheGather() async throws {
        let report = try await itemsWithOneFailure(then: "success")
        #expect(report.status(of: "after") == .skipped)
        #expect(report.node("after")?.cause == "upstream work[2] failed: probe failed on purpose")
        #expect(report.status(of: "notify") == .skipped)
    }

    @Test func alwaysRunsAfterEveryItemEndedAndNamesWhatIsMissing() async throws {
        let report = try await itemsWithOneFailure(then: "always")
        #expect(report.status(of: "next[2]") == .skipped)
        #expect(report.status(of: "after") == .succeeded)
        #expect(report.node("after")?.missingInputs == ["next[2]"])
        #expect(report.status(of: "notify") == .succeeded)
        #expect(report.node("notify")?.missingInputs == nil)
        #expect(report.exitCode == 1, "the failure still fails the run")
    }

    @Test func allDoneNeedsEveryDependencyToHaveRun() async throws {
        let skipped = try await itemsWithOneFailure(then: "allDone")
        #expect(skipped.status(of: "after") == .skipped)
        #expect(skipped.node("after")?.cause == "runIf: allDone, and a dependency did not run")
        #expect(skipped.status(of: "notify") == .skipped)
        let ran = try await run(
            """
              a: { type: probe, behavior: fail }
              b: { type: probe }
              report: { type: noop, dependsOn: [a, b], runIf: allDone }
            """)
        #expect(ran.status(of: "report") == .succeeded)
        #expect(ran.node("report")?.missingInputs == ["a"])
    }

    @Test func anyFailedRunsOnlyAfterAFailure() async throws {
        let failed = try await itemsWithOneFailure(then: "anyFailed")
        #expect(failed.status(of: "after") == .skipped, "next[2] was skipped, not failed")
        let report = try await run(
            """
              a: { type: probe, behavior: fail }
              b: { type: probe }
              alert: { type: noop, dependsOn: [a, b], runIf: anyFailed }
              quiet: { type: noop, dependsOn: b, runIf: anyFailed }
              afterQuiet: { type: noop, dependsOn: quiet, runIf: always }
            """)
        #expect(report.status(of: "alert") == .succeeded)
        #expect(report.status(of: "quiet") == .skipped)
        #expect(report.node("quiet")?.cause == "runIf: anyFailed, and no dependency failed")
        #expect(report.status(of: "afterQuiet") == .succeeded)
    }

    @Test func alwaysWaitsForEveryDependency() async throws {
        let report = try await run(
            """
              fails: { type: probe, behavior: fail }
              slow: { type: probe, hold: 300 }
              cleanup: { type: noop, dependsOn: [fails, slow], runIf: always }
            """)
        let cleanup = try #require(report.node("cleanup"))
        let slow = try #require(report.node("slow"))
        #expect(cleanup.status == .succeeded)
        #expect(try #require(cleanup.start) >= (try #require(slow.end)))
    }
}
