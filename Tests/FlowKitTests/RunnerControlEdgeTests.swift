import FlowKit
import FlowKitTesting
import Foundation
import Synchronization
import Testing

/// Control calls at the edges: names the plan does not have, runs that are over, calls racing the end of a
/// run, a whole-run cancel while queues are suspended.
@Suite struct RunnerControlEdgeTests {
    let recorder = ProbeRecorder()
    let registry: TaskRegistry

    init() {
        registry = TaskRegistry.builtIn.adding(ProbeTask(recorder: recorder))
    }

    let pipeline = """
        version: 1
        queues: { io: { maxConcurrent: 2 }, cpu: { maxConcurrent: 1 } }
        tasks:
          fetch: { type: probe, queue: io, forEach: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] }
          tone: { type: probe, queue: cpu, dependsOn: fetch }
          all: { type: probe, gather: true, dependsOn: tone }
        """

    @Test func unknownNamesThrowAndChangeNothing() async throws {
        let runner = Runner(plan: try TestWorkflow.plan(pipeline, registry: registry))
        #expect(throws: RunControlError.unknownQueue("cpus", suggestion: "cpu")) { try runner.suspend(queue: "cpus") }
        #expect(throws: RunControlError.unknownQueue("network", suggestion: nil)) {
            try runner.resume(queue: "network")
        }
        #expect(throws: RunControlError.unknownItem(10, itemCount: 10)) { try runner.cancel(item: 10) }
        #expect(throws: RunControlError.unknownItem(-1, itemCount: 10)) { try runner.prioritize(items: [3, -1]) }
        #expect(throws: RunControlError.unknownNode("tone[12]", suggestion: "tone[1]")) {
            try runner.cancel(node: "tone[12]")
        }
        #expect(
            RunControlError.unknownQueue("cpus", suggestion: "cpu").description
                == "the workflow has no queue 'cpus' (did you mean 'cpu'?)")
        #expect(
            RunControlError.unknownItem(10, itemCount: 10).description
                == "no node has item 10: items are numbered 0 to 9")
        let report = await runner.run()
        #expect(report.exitCode == 0)
        #expect(report.nodes.allSatisfy { $0.status == .succeeded })
    }

    @Test func callsOnAFinishedRunDoNothing() async throws {
        let events = Atomic<Int>(0)
        let runner = Runner(
            plan: try TestWorkflow.plan(pipeline, registry: registry),
            options: RunOptions(observer: { _ in events.add(1, ordering: .relaxed) }))
        let report = await runner.run()
        let eventsAtEnd = events.load(ordering: .relaxed)
        let progressAtEnd = runner.progress()
        try runner.suspend(queue: "cpu")
        runner.suspendAll()
        try runner.cancel(item: 3)
        try runner.cancel(node: "all")
        try runner.prioritize(items: [1])
        runner.resumeAll()
        #expect(report.exitCode == 0)
        #expect(events.load(ordering: .relaxed) == eventsAtEnd)
        #expect(runner.progress() == progressAtEnd)
    }

    /// Cancelled before the run starts, every item: the gather is ready at once and runs over nothing.
    @Test func aGatherWhoseEveryItemWasCancelledRunsWithNoInputs() async throws {
        let runner = Runner(plan: try TestWorkflow.plan(pipeline, registry: registry))
        for item in 0..<10 { try runner.cancel(item: item) }
        let report = await runner.run()
        #expect(report.status(of: "all") == .succeeded)
        #expect(recorder.entry("all")?.inputs == [])
        #expect(recorder.all.map(\.nodeID) == ["all"])
        #expect(report.totals[.cancelled] == 20)
        #expect(report.exitCode == 0)
    }

    /// A node waiting out its retry backoff is cancelled at once, and its retry never comes.
    @Test func cancellingAnItemWaitingToRetryEndsItNow() throws {
        let clock = ManualClock()
        let runner = Runner(
            plan: try TestWorkflow.plan(
                """
                version: 1
                tasks:
                  flaky: { type: probe, behavior: failTimes, failures: 1, retries: 1, forEach: [0, 1] }
                """, registry: registry),
            options: RunOptions(clock: clock, retry: RetryPolicy(baseDelay: .seconds(1), jitter: false)))
        let run = TestWorkflow.BackgroundRun(runner: runner)
        #expect(clock.waitForScheduled(count: 2))  // both items failed once and wait for their retry
        try runner.cancel(item: 0, cause: "not needed any more")
        #expect(runner.progress()["default"]?[.cancelled] == 1)
        clock.advance(by: .seconds(1))
        let report = try #require(run.wait())
        #expect(report.status(of: "flaky[0]") == .cancelled)
        #expect(report.node("flaky[0]")?.cause == "not needed any more")
        #expect(report.node("flaky[0]")?.attempts == 1)
        #expect(report.status(of: "flaky[1]") == .succeeded)
        #expect(report.node("flaky[1]")?.attempts == 2)
    }

    /// A cancelled run leaves cancelled operations in suspended OperationQueues; they must still end, or
    /// `run()` never returns.
    @Test func cancellingTheRunReleasesSuspendedQueues() throws {
        let runner = Runner(
            plan: try TestWorkflow.plan(
                """
                version: 1
                queues: { serial: { maxConcurrent: 1 } }
                tasks:
                  held: { type: probe, behavior: block, queue: serial }
                  later: { type: probe, queue: serial, forEach: [0, 1, 2] }
                """, registry: registry))
        let run = TestWorkflow.BackgroundRun(runner: runner)
        #expect(recorder.waitUntilBlocked(1))
        runner.suspendAll()
        runner.cancel()
        // A suspend after the cancel must not trap the cancelled operations again.
        runner.suspendAll()
        let report = try #require(run.wait(timeout: 10), "the run did not end")
        #expect(report.interrupted)
        #expect(recorder.all.map(\.nodeID) == ["held"])
    }

    /// Control calls from several threads while runs end: every run still ends, every node is final, and a
    /// cancelled item is cancelled with the app's cause, never failed.
    @Test func callsRacingTheEndOfARunAreHarmless() throws {
        let plan = try TestWorkflow.plan(pipeline, registry: registry)
        for iteration in 0..<60 {
            let runner = Runner(plan: plan)
            let run = TestWorkflow.BackgroundRun(runner: runner)
            let callers = DispatchGroup()
            for caller in 0..<3 {
                callers.enter()
                Thread.detachNewThread {
                    defer { callers.leave() }
                    for step in 0..<40 {
                        let item = (iteration + caller * 7 + step) % 10
                        switch step % 5 {
                        case 0: try? runner.suspend(queue: caller == 0 ? "io" : "cpu")
                        case 1: try? runner.prioritize(items: [item, (item + 5) % 10])
                        case 2: if step % 20 == 2 { try? runner.cancel(item: item) }
                        case 3: runner.suspendAll()
                        default: runner.resumeAll()
                        }
                    }
                    runner.resumeAll()
                }
            }
            let report = try #require(run.wait(timeout: 30), "iteration \(iteration) did not end")
            #expect(callers.wait(timeout: .now() + 30) == .success)
            #expect(report.nodes.allSatisfy { $0.status.isFinal })
            #expect(report.exitCode == 0)
            for node in report.nodes where node.status == .cancelled {
                #expect(node.cause == Runner.defaultCancellationCause)
            }
        }
    }
}
