import FlowBasics
import FlowKit
import FlowKitTesting
import Foundation
import Testing

@Suite struct RunnerTests {
    let recorder: ProbeRecorder
    let registry: TaskRegistry

    init() {
        recorder = ProbeRecorder(queueLimits: ["io": 3, "serial": 1, "default": 2])
        registry = TaskRegistry.builtIn.adding(ProbeTask(recorder: recorder))
    }

    func run(_ yaml: String, options: RunOptions = RunOptions(maxConcurrentDefault: 2)) async throws -> RunReport {
        await Runner(plan: try TestWorkflow.plan(yaml, registry: registry), options: options).run()
    }

    @Test func concurrencyReachesButNeverExceedsTheQueueLimit() async throws {
        let report = try await run(
            """
            version: 1
            queues: { io: { maxConcurrent: 3 }, serial: { maxConcurrent: 1 } }
            tasks:
              wide: { type: probe, queue: io, hold: 3000, forEach: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }
              one: { type: probe, queue: serial, hold: 50, forEach: [0, 1, 2, 3] }
            """)
        #expect(report.exitCode == 0)
        #expect(recorder.peakConcurrency(of: "io") == 3)
        #expect(recorder.peakConcurrency(of: "serial") == 1)
        let lanes = Set(report.nodes.filter { $0.queue == "io" }.flatMap(\.spans).map(\.lane))
        #expect(lanes == [0, 1, 2])
    }

    @Test func dependentsStartOnlyAfterTheirDependenciesSucceeded() async throws {
        let report = try await run(
            """
            version: 1
            tasks:
              a: { type: probe }
              b: { type: probe, dependsOn: a }
              c: { type: probe, dependsOn: a }
              d: { type: probe, dependsOn: [b, c] }
            """)
        #expect(report.exitCode == 0)
        let a = try #require(recorder.entry("a"))
        let b = try #require(recorder.entry("b"))
        let c = try #require(recorder.entry("c"))
        let d = try #require(recorder.entry("d"))
        #expect(b.startSequence > a.endSequence!)
        #expect(c.startSequence > a.endSequence!)
        #expect(d.startSequence > max(b.endSequence!, c.endSequence!))
        #expect(d.inputs == ["b", "c"])
    }

    @Test func aFailureSkipsEverythingDownstreamAndNamesTheCause() async throws {
        let report = try await run(
            """
            version: 1
            tasks:
              a: { type: probe, behavior: fail }
              b: { type: probe, dependsOn: a }
              c: { type: probe, dependsOn: b }
              independent: { type: probe }
            """)
        #expect(report.exitCode == 1)
        #expect(report.status(of: "a") == .failed)
        #expect(report.node("a")?.cause == "probe failed on purpose")
        #expect(report.status(of: "b") == .skipped)
        #expect(report.node("c")?.cause == "upstream a failed: probe failed on purpose")
        #expect(report.status(of: "independent") == .succeeded)
        #expect(recorder.entry("b") == nil && recorder.entry("c") == nil)
    }

    @Test func continueOnErrorCountsAsSuccessButStillSkipsDependents() async throws {
        let report = try await run(
            """
            version: 1
            tasks:
              a: { type: probe, behavior: fail, continueOnError: true }
              b: { type: probe, dependsOn: a }
            """)
        #expect(report.exitCode == 0)
        #expect(report.status(of: "a") == .failed)
        #expect(report.status(of: "b") == .skipped)
    }

    @Test func failFastCancelsTheRestOfTheRun() async throws {
        let report = try await run(
            """
            version: 1
            failFast: true
            queues: { serial: { maxConcurrent: 1 } }
            tasks:
              blocker: { type: probe, behavior: block }
              failing: { type: probe, behavior: fail, queue: serial }
              waiting: { type: probe, queue: serial, forEach: [0, 1, 2, 3, 4, 5], dependsOn: failing }
              independent: { type: probe, queue: serial, forEach: [0, 1, 2, 3, 4, 5] }
            """)
        #expect(report.exitCode == 1)
        #expect(!report.interrupted)
        #expect(report.status(of: "failing") == .failed)
        // The blocker only ends because fail-fast cancelled it (whether it had started or not).
        #expect(report.status(of: "blocker") == .cancelled)
        #expect(report.node("blocker")?.cause == "cancelled after a failure (fail-fast)")
        #expect(report.status(of: "waiting[0]") == .skipped)
    }

    @Test func withoutFailFastIndependentBranchesGoOn() async throws {
        let report = try await run(
            """
            version: 1
            tasks:
              failing: { type: probe, behavior: fail }
              others: { type: probe, forEach: [0, 1, 2, 3, 4, 5] }
            """)
        #expect(report.exitCode == 1)
        #expect((0..<6).allSatisfy { report.status(of: "others[\($0)]") == .succeeded })
    }

    @Test func retriesBackOffExponentiallyOnTheInjectedClock() throws {
        let clock = ManualClock()
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              flaky: { type: probe, behavior: failTimes, failures: 2, retries: 3 }
              after: { type: probe, dependsOn: flaky }
            """, registry: registry)
        let run = TestWorkflow.BackgroundRun(
            plan: plan,
            options: RunOptions(
                clock: clock, retry: RetryPolicy(baseDelay: .seconds(1), jitter: false)))
        #expect(clock.waitForScheduled(count: 1))
        clock.advance(by: .seconds(1))
        #expect(clock.waitForScheduled(count: 2))
        clock.advance(by: .seconds(2))
        let report = try #require(run.wait())
        #expect(clock.scheduledDelays == [.seconds(1), .seconds(2)])
        #expect(report.status(of: "flaky") == .succeeded)
        #expect(report.node("flaky")?.attempts == 3)
        #expect(report.node("flaky")?.spans.map(\.attempt) == [1, 2, 3])
        #expect(report.status(of: "after") == .succeeded)
    }

    @Test func retriesGiveUpAfterTheLastAttempt() throws {
        let clock = ManualClock()
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              flaky: { type: probe, behavior: failTimes, failures: 5, retries: 1 }
            """, registry: registry)
        let run = TestWorkflow.BackgroundRun(plan: plan, options: RunOptions(clock: clock))
        #expect(clock.waitForScheduled(count: 1))
        clock.advance(by: .seconds(60))
        let report = try #require(run.wait())
        #expect(report.status(of: "flaky") == .failed)
        #expect(report.node("flaky")?.attempts == 2)
        #expect(report.node("flaky")?.cause == "probe attempt 2 failed")
    }

    @Test func jitteredBackoffStaysWithinItsBounds() {
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        for attempt in 1...8 {
            let full = min(0.1 * Double(1 << (attempt - 1)), 1.0)
            let delay = policy.delay(afterAttempt: attempt).seconds
            #expect(delay >= full * 0.5 - 0.001 && delay <= full + 0.001)
        }
    }

    @Test func aTimeoutCancelsTheNodeAndReportsIt() throws {
        let clock = ManualClock()
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              slow: { type: probe, behavior: block, timeout: 5s }
              after: { type: probe, dependsOn: slow }
            """, registry: registry)
        let run = TestWorkflow.BackgroundRun(plan: plan, options: RunOptions(clock: clock))
        #expect(recorder.waitUntilBlocked(1))
        #expect(clock.waitForScheduled(count: 1))
        clock.advance(by: .seconds(5))
        let report = try #require(run.wait())
        #expect(report.status(of: "slow") == .failed)
        #expect(report.node("slow")?.code == "timedOut")
        #expect(report.node("slow")?.cause == "timed out after 5s")
        #expect(report.node("after")?.cause == "upstream slow failed: timed out after 5s")
        #expect(report.exitCode == 1)
    }

    @Test func cancellingStopsRunningNodesAndNeverStartsQueuedOnes() throws {
        let plan = try TestWorkflow.plan(
            """
            version: 1
            queues: { serial: { maxConcurrent: 1 } }
            tasks:
              running: { type: probe, behavior: block, queue: serial }
              queued: { type: probe, queue: serial, forEach: [0, 1, 2] }
              downstream: { type: probe, dependsOn: running }
            """, registry: registry)
        let run = TestWorkflow.BackgroundRun(plan: plan, options: RunOptions())
        #expect(recorder.waitUntilBlocked(1))
        run.runner.cancel()
        let report = try #require(run.wait())
        #expect(report.interrupted)
        #expect(report.exitCode == 130)
        #expect(report.status(of: "running") == .cancelled)
        for id in ["queued[0]", "queued[1]", "queued[2]", "downstream"] {
            #expect(
                report.status(of: id) == .cancelled || report.status(of: id) == .skipped,
                "\(report.nodes.map { "\($0.id)=\($0.status)" })")
            #expect(recorder.entry(id) == nil, "\(id) must never start")
        }
    }

    @Test func cancellingBeforeTheRunStartsRunsNothing() async throws {
        let runner = Runner(
            plan: try TestWorkflow.plan(
                """
                version: 1
                tasks:
                  a: { type: probe }
                  b: { type: probe, dependsOn: a }
                """, registry: registry))
        runner.cancel()
        let report = await runner.run()
        #expect(report.nodes.allSatisfy { $0.status == .cancelled })
        #expect(recorder.all.isEmpty)
    }

    @Test func sleepEndsAtOnceWhenCancelled() throws {
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              nap: { type: sleep, duration: 60s }
            """, registry: registry)
        let run = TestWorkflow.BackgroundRun(plan: plan, options: RunOptions())
        let deadline = Date(timeIntervalSinceNow: 10)
        while run.runner.progress()["default"]?[.running] != 1, Date() < deadline { usleep(1000) }
        let start = Date()
        run.runner.cancel()
        let report = try #require(run.wait(timeout: 5))
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(report.status(of: "nap") == .cancelled)
    }

    @Test func cancellingTheAwaitingTaskCancelsTheRun() async throws {
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              nap: { type: sleep, duration: 60s }
              after: { type: noop, dependsOn: nap }
            """, registry: registry)
        let runner = Runner(plan: plan)
        let task = Task { await runner.run() }
        let deadline = Date(timeIntervalSinceNow: 10)
        while runner.progress()["default"]?[.running] != 1, Date() < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        task.cancel()
        let report = await task.value
        #expect(report.interrupted)
        #expect(report.status(of: "nap") == .cancelled)
        #expect(report.status(of: "after") == .skipped || report.status(of: "after") == .cancelled)
    }

    /// The asynchronous `run()` holds no thread while nodes run: several runs awaited from tasks that share
    /// one thread all get going. Each run's gate node finishes only once every run's gate has started (or
    /// after 10 s, failing); a `run()` that blocked the thread would keep the other runs from starting.
    @Test func awaitedRunsShareOneThread() async throws {
        let runs = 3
        let gate = Gate(size: runs)
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              wait: { type: gate }
              after: { type: noop, dependsOn: wait }
            """, registry: TaskRegistry.builtIn.adding(GateTask(gate: gate)))
        let executor = OneThreadExecutor()
        let codes = await withTaskExecutorPreference(executor) {
            await withTaskGroup(of: Int32.self) { group in
                for _ in 0..<runs { group.addTask { await Runner(plan: plan).run().exitCode } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(codes == [0, 0, 0])
        executor.stop()
    }

    @Test func gatherReceivesEveryItemInOrder() async throws {
        let report = try await run(
            """
            version: 1
            tasks:
              each: { type: probe, forEach: [a, b, c, d, e, f, g, h, i, j, k, l], value: "${item}" }
              all: { type: probe, gather: true, dependsOn: each }
            """)
        #expect(report.exitCode == 0)
        #expect(recorder.entry("all")?.inputs == ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"])
    }

    /// `run()` returns only once every thread has carried out what it read from the state: the last node's
    /// events are not still on their way to the observer (the progress line, the trace) from another thread.
    @Test func everyEventIsDeliveredBeforeRunReturns() async throws {
        let items = (0..<300).map(String.init).joined(separator: ", ")
        let plan = try TestWorkflow.plan(
            """
            version: 1
            queues: { io: { maxConcurrent: 3 } }
            tasks:
              make: { type: probe, queue: io, forEach: [\(items)] }
              use: { type: probe, dependsOn: make }
            """, registry: registry)
        for round in 0..<5 {
            let events = LockedBox(0)
            let options = RunOptions(maxConcurrentDefault: 2, observer: { _ in events.withLock { $0 += 1 } })
            let report = await Runner(plan: plan, options: options).run()
            let delivered = events.withLock { $0 }
            #expect(report.exitCode == 0)
            // queued, running and succeeded for each of the 600 nodes
            #expect(delivered == 3 * plan.nodes.count, "round \(round): \(delivered) events when run() returned")
        }
    }

    @Test func aTaskPriorityBecomesTheOperationsQueuePriority() async throws {
        let report = try await run(
            """
            version: 1
            tasks:
              urgent: { type: probe, priority: veryHigh }
              later: { type: probe, priority: low }
              plain: { type: probe }
            """)
        #expect(report.exitCode == 0)
        #expect(recorder.entry("urgent")?.queuePriority == .veryHigh)
        #expect(recorder.entry("later")?.queuePriority == .low)
        #expect(recorder.entry("plain")?.queuePriority == .normal)
    }

    @Test func inputPicksOneProviderAmongSeveral() async throws {
        let report = try await run(
            """
            version: 1
            tasks:
              left: { type: probe, value: L }
              right: { type: probe, value: R }
              both: { type: probe, dependsOn: [left, right] }
              pick: { type: probe, dependsOn: [left, right], input: right }
            """)
        #expect(report.exitCode == 0)
        #expect(recorder.entry("both")?.inputs == ["L", "R"])
        #expect(recorder.entry("pick")?.inputs == ["R"])
    }

    @Test func outputsAreReleasedAsSoonAsTheirConsumersFinish() async throws {
        let items = (0..<50_000).map(String.init).joined(separator: "\n")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try items.write(to: folder.appendingPathComponent("items.txt"), atomically: true, encoding: .utf8)
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              make: { type: probe, forEach: { file: items.txt } }
              use: { type: probe, dependsOn: make }
            """, registry: registry, path: folder.appendingPathComponent("big.yaml").path)
        #expect(plan.nodes.count == 100_000)
        let report = await Runner(plan: plan, options: RunOptions(maxConcurrentDefault: 2)).run()
        #expect(report.exitCode == 0)
        #expect(recorder.outputsAliveOnceReleased() == 0)
        // Admission control drains each item's pipeline first: outputs alive stay near the queue limit.
        #expect(recorder.peakOutputsAlive < 64, "peak outputs alive: \(recorder.peakOutputsAlive)")
    }

    /// Found measuring peak RSS of the gallery job (Fuzz/README.md): `fetch` on a fast queue ran far ahead of
    /// `decode` on a slow one, and every fetched photo waited in memory (531 MB for 1,000 photos, 102 MB for 100).
    /// Sources — nodes without dependencies whose outputs others consume — now wait while the other nodes'
    /// backlog is full.
    @Test func aFastProducerOnItsOwnQueueDoesNotRunAheadOfASlowConsumer() async throws {
        let items = (0..<400).map(String.init).joined(separator: ", ")
        let report = try await run(
            """
            version: 1
            queues: { io: { maxConcurrent: 3 }, cpu: { maxConcurrent: 1 } }
            tasks:
              make: { type: probe, queue: io, forEach: [\(items)] }
              use: { type: probe, queue: cpu, hold: 1, dependsOn: make }
            """)
        #expect(report.exitCode == 0)
        #expect(recorder.outputsAliveOnceReleased() == 0)
        #expect(recorder.peakOutputsAlive < 40, "peak outputs alive: \(recorder.peakOutputsAlive)")
    }

    /// Foundation keeps a finished operation until its own bookkeeping is done: releasing the output must free
    /// it even while the operation itself is still held. (The outcome kept a second reference to the output, so
    /// it lived as long as the operation.)
    @Test func aReleasedOutputIsFreedWhileItsOperationIsStillHeld() {
        let operation = ProbeTask(recorder: recorder).makeOperation(NodeContext(nodeID: "held", typeName: "probe"))
        operation.start()
        #expect(operation.isFinished)
        #expect(recorder.outputsAlive == 1)
        operation.releaseOutput()
        #expect(recorder.outputsAlive == 0)
        let outcomeHoldsNothing = if case .success(nil)? = operation.outcome { true } else { false }
        #expect(outcomeHoldsNothing, "outcome after release: \(String(describing: operation.outcome))")
        withExtendedLifetime(operation) {}
    }
}
