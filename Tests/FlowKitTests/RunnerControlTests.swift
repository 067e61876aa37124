import FlowKit
import FlowKitTesting
import Foundation
import Testing

/// Suspending and resuming queues, cancelling items and nodes, prioritising items — on a running run.
///
/// Order is made deterministic with a serial queue and a probe that blocks until the test releases it: while
/// it runs, its queue holds one more operation and the rest wait in the runner's ready heap.
@Suite struct RunnerControlTests {
    let recorder: ProbeRecorder
    let registry: TaskRegistry

    init() {
        recorder = ProbeRecorder(queueLimits: ["serial": 1, "io": 3, "default": 2])
        registry = TaskRegistry.builtIn.adding(ProbeTask(recorder: recorder))
    }

    func runner(_ yaml: String, options: RunOptions = RunOptions(maxConcurrentDefault: 2)) throws -> Runner {
        Runner(plan: try TestWorkflow.plan(yaml, registry: registry), options: options)
    }

    /// The order nodes of a task started in, by node id.
    func startOrder(of task: String) -> [String] {
        recorder.all.map(\.nodeID).filter { $0.hasPrefix(task + "[") || $0 == task }
    }

    /// Waits (bounded) until a queue's nodes reached a count in a status.
    func waitFor(_ runner: Runner, queue: String, _ status: NodeStatus, count: Int) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 10)
        while runner.progress()[queue]?[status] != count {
            if Date() > deadline { return false }
            usleep(1000)
        }
        return true
    }

    @Test func nothingStartsOnASuspendedQueueWhileOthersGoOn() throws {
        let runner = try runner(
            """
            version: 1
            queues: { serial: { maxConcurrent: 1 }, io: { maxConcurrent: 3 } }
            tasks:
              held: { type: probe, behavior: block, queue: serial }
              later: { type: probe, queue: serial, forEach: [0, 1, 2] }
              other: { type: probe, queue: io, forEach: [0, 1, 2, 3, 4, 5] }
            """)
        let run = TestWorkflow.BackgroundRun(runner: runner)
        #expect(recorder.waitUntilBlocked(1))
        try runner.suspend(queue: "serial")
        // `later[0]` is already in the serial OperationQueue, waiting for `held`'s slot: it must wait on.
        #expect(recorder.release("held"))
        #expect(waitFor(runner, queue: "io", .succeeded, count: 6))
        #expect(waitFor(runner, queue: "serial", .succeeded, count: 1))
        #expect(startOrder(of: "later").isEmpty)
        #expect(runner.progress()["serial"]?[.queued] == 3)
        // The runner handed the suspended queue nothing more: a node still in its heap is cancelled at once.
        try runner.cancel(node: "later[1]")
        #expect(runner.progress()["serial"]?[.cancelled] == 1)

        try runner.resume(queue: "serial")
        let report = try #require(run.wait())
        #expect(report.exitCode == 0)
        #expect(startOrder(of: "later") == ["later[0]", "later[2]"])
        #expect(report.status(of: "later[1]") == .cancelled)
    }

    @Test func aResumedQueueAdmitsInPriorityOrder() throws {
        let runner = try runner(
            """
            version: 1
            queues: { serial: { maxConcurrent: 1 } }
            tasks:
              each: { type: probe, queue: serial, forEach: [0, 1, 2, 3, 4, 5] }
              urgent: { type: probe, queue: serial, priority: high }
            """)
        try runner.suspend(queue: "serial")
        try runner.prioritize(items: [4, 2])
        let run = TestWorkflow.BackgroundRun(runner: runner)
        #expect(waitFor(runner, queue: "serial", .queued, count: 7))
        #expect(recorder.all.isEmpty)

        try runner.resume(queue: "serial")
        let report = try #require(run.wait())
        #expect(report.exitCode == 0)
        // Prioritised items first, in the order given; then task priority; then item order.
        #expect(
            recorder.all.map(\.nodeID) == ["each[4]", "each[2]", "urgent", "each[0]", "each[1]", "each[3]", "each[5]"])
    }

    @Test func prioritizeMovesPendingNodesAhead() throws {
        let runner = try runner(
            """
            version: 1
            queues: { serial: { maxConcurrent: 1 } }
            tasks:
              held: { type: probe, behavior: block, queue: serial }
              each: { type: probe, queue: serial, forEach: [0, 1, 2, 3, 4, 5, 6, 7] }
            """)
        let run = TestWorkflow.BackgroundRun(runner: runner)
        #expect(recorder.waitUntilBlocked(1))
        try runner.prioritize(items: [6, 3])
        try runner.prioritize(items: [5])  // a later call goes ahead of earlier ones
        #expect(recorder.release("held"))
        let report = try #require(run.wait())
        #expect(report.exitCode == 0)
        // `each[0]` was already in the OperationQueue behind `held`: prioritised nodes go ahead of it too.
        #expect(
            startOrder(of: "each") == [
                "each[5]", "each[6]", "each[3]", "each[0]", "each[1]", "each[2]", "each[4]", "each[7]",
            ])
        #expect(recorder.entry("each[5]")?.queuePriority == .veryHigh)
        #expect(recorder.entry("each[0]")?.queuePriority == .normal)
    }

    @Test func cancellingAnItemCancelsExactlyItsChainAndAGatherRunsOverTheRest() throws {
        let runner = try runner(
            """
            version: 1
            queues: { serial: { maxConcurrent: 1 } }
            tasks:
              held: { type: probe, behavior: block, queue: serial }
              fetch: { type: probe, queue: serial, forEach: [a, b, c, d], value: "${item}" }
              tone: { type: probe, queue: serial, dependsOn: fetch, value: "toned ${item}" }
              all: { type: probe, gather: true, dependsOn: tone }
            """)
        let run = TestWorkflow.BackgroundRun(runner: runner)
        #expect(recorder.waitUntilBlocked(1))
        // Item 0's fetch is already in the OperationQueue; item 2's still waits in the runner.
        try runner.cancel(item: 0)
        try runner.cancel(item: 2)
        #expect(recorder.release("held"))
        let report = try #require(run.wait())
        for id in ["fetch[a]", "tone[a]", "fetch[c]", "tone[c]"] {
            #expect(report.status(of: id) == .cancelled, "\(id)")
            #expect(report.node(id)?.code == "cancelled")
            #expect(report.node(id)?.cause == "cancelled by the embedding app")
            #expect(recorder.entry(id) == nil, "\(id) must never start")
        }
        for id in ["fetch[b]", "tone[b]", "fetch[d]", "tone[d]", "all"] {
            #expect(report.status(of: id) == .succeeded, "\(id)")
        }
        #expect(recorder.entry("all")?.inputs == ["toned b", "toned d"])
        #expect(report.exitCode == 0)
    }

    @Test func cancellingAnItemStopsItsRunningNode() throws {
        let runner = try runner(
            """
            version: 1
            tasks:
              work: { type: probe, behavior: block, forEach: [0, 1] }
              after: { type: probe, dependsOn: work }
            """)
        let run = TestWorkflow.BackgroundRun(runner: runner)
        #expect(recorder.waitUntilBlocked(2))
        try runner.cancel(item: 0, cause: "scrolled out of view")
        #expect(recorder.release("work[1]"))
        let report = try #require(run.wait())
        #expect(report.status(of: "work[0]") == .cancelled)
        #expect(report.node("work[0]")?.cause == "scrolled out of view")
        #expect(report.status(of: "after[0]") == .cancelled)
        #expect(report.status(of: "work[1]") == .succeeded)
        #expect(report.status(of: "after[1]") == .succeeded)
        #expect(report.exitCode == 0)
    }

    @Test func cancellingANodeSkipsItsDependentsButNotAGather() async throws {
        let runner = try runner(
            """
            version: 1
            tasks:
              fetch: { type: probe, forEach: [a, b, c], value: "${item}" }
              tone: { type: probe, dependsOn: fetch, value: "toned ${item}" }
              all: { type: probe, gather: true, dependsOn: tone }
            """)
        try runner.cancel(node: "fetch[b]")
        let report = await runner.run()
        #expect(report.status(of: "fetch[b]") == .cancelled)
        #expect(report.status(of: "tone[b]") == .skipped)
        #expect(report.node("tone[b]")?.cause == "upstream fetch[b] was cancelled")
        #expect(recorder.entry("all")?.inputs == ["toned a", "toned c"])
        #expect(report.exitCode == 0)
    }

    /// A node's timeout counts from its start: nodes waiting in a suspended queue — in the runner's heap or
    /// already in the OperationQueue — arm no timer, however long the suspension lasts.
    @Test func nodesWaitingInASuspendedQueueDoNotTimeOut() throws {
        let clock = ManualClock()
        let runner = try runner(
            """
            version: 1
            queues: { serial: { maxConcurrent: 1 } }
            tasks:
              work: { type: probe, behavior: block, queue: serial, forEach: [0, 1, 2], timeout: 5s }
            """, options: RunOptions(clock: clock))
        let run = TestWorkflow.BackgroundRun(runner: runner)
        #expect(recorder.waitUntilBlocked(1))
        #expect(clock.waitForScheduled(count: 1))
        try runner.suspend(queue: "serial")
        #expect(recorder.release("work[0]"))
        #expect(waitFor(runner, queue: "serial", .succeeded, count: 1))
        clock.advance(by: .seconds(60))
        #expect(clock.scheduledDelays == [.seconds(5)])

        try runner.resume(queue: "serial")
        for id in ["work[1]", "work[2]"] {
            #expect(recorder.waitUntilBlocked(1))
            #expect(recorder.release(id))
        }
        let report = try #require(run.wait())
        #expect(report.exitCode == 0)
        #expect(report.nodes.allSatisfy { $0.status == .succeeded })
        #expect(clock.scheduledDelays == [.seconds(5), .seconds(5), .seconds(5)])
    }
}
