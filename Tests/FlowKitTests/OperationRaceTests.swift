import FlowBasics
import FlowKitTesting
import Foundation
import OrderedCollections
import TestSupport
import Testing

@testable import FlowKit

/// The races between an operation's own ending and the cancels that reach it (Ctrl-C, fail-fast, its
/// timeout), and between its ending and Foundation reusing its queue slot. Each test forces the interleaving
/// that used to go wrong, so it fails without the fix rather than now and then.
@Suite struct OperationRaceTests {
    // MARK: A failure keeps its own cause

    @Test func aFailureRacingItsOwnTimeoutKeepsItsCause() async throws {
        let clock = ManualClock()
        // The timeout fires while the node is still executing, just before it fails for a reason of its own.
        let report = try await ScriptedTask.run(
            "a: { type: scripted, timeout: 1s }", options: RunOptions(clock: clock)
        ) { operation, _ in
            clock.advance(by: .seconds(2))
            operation.finish(.failure(operation.context.failure(.invalidInput, "the real cause")))
        }
        let node = try #require(report.nodes.first)
        #expect(node.status == .failed)
        #expect(node.cause == "the real cause")
    }

    @Test func aFailureRacingCtrlCKeepsItsCause() async throws {
        let report = try await ScriptedTask.run("a: { type: scripted }") { operation, runner in
            runner.cancel()
            operation.finish(.failure(operation.context.failure(.invalidInput, "the real cause")))
        }
        let node = try #require(report.nodes.first)
        #expect(node.status == .failed)
        #expect(node.cause == "the real cause")
        #expect(report.interrupted)
    }

    @Test func aCancelAfterTheOutcomeIsKnownChangesNothing() async throws {
        let operation = ScriptedOperation(context: NodeContext(nodeID: "a", typeName: "scripted")) { operation, _ in
            operation.finish(.failure(operation.context.failure(.invalidInput, "the real cause")))
        }
        let outcome = await run(operation)
        operation.cancel(reason: .timedOut(.seconds(1)))
        operation.cancel()
        #expect(operation.cancellationReason == nil)
        #expect(!operation.isCancelled)
        #expect(failureOf(outcome)?.message == "the real cause")
        #expect(failureOf(operation.outcome)?.message == "the real cause")
    }

    @Test func aCancelStillReachesAnOperationThatHasNotEnded() async throws {
        let operation = ScriptedOperation(context: NodeContext(nodeID: "a", typeName: "scripted")) { _, _ in }
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await waitUntil(promptly) { operation.isExecuting })
        operation.cancel(reason: .timedOut(.seconds(1)))
        #expect(operation.cancellationReason == .timedOut(.seconds(1)))
        #expect(operation.isCancelled)
        #expect(operation.didCancelCalls == 1)
        operation.finish(.cancelled)
        #expect(await waitUntil(promptly) { operation.isFinished })
    }

    // MARK: didCancel runs once

    @Test func didCancelRunsOnceWhenTwoCancelsRace() async throws {
        let operation = ScriptedOperation(context: NodeContext(nodeID: "a", typeName: "scripted")) { _, _ in }
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await waitUntil(promptly) { operation.isExecuting })
        // Both cancels read the operation's state before either marks it cancelled: whoever looks at
        // `isCancelled` now waits there for the other.
        operation.rendezvous = Rendezvous(parties: 2)
        // Threads of their own: on 2 cores, Dispatch's pool may have no second thread free for the other cancel.
        let cancelled = LockedBox(0)
        for _ in 0..<2 {
            Thread {
                operation.cancel()
                cancelled.withLock { $0 += 1 }
            }.start()
        }
        #expect(await waitUntil(promptly) { cancelled.withLock { $0 } == 2 })
        operation.rendezvous = nil
        #expect(operation.didCancelCalls == 1)
        operation.finish(.cancelled)
        #expect(await waitUntil(promptly) { operation.isFinished })
    }

    // MARK: Lanes never outnumber slots

    @Test func theRunnerLearnsOfAnEndBeforeFoundationCanReuseTheSlot() async throws {
        let operation = ScriptedOperation(context: NodeContext(nodeID: "a", typeName: "scripted")) { operation, _ in
            operation.finish(.success(nil))
        }
        let lifecycle = RecordingLifecycle()
        operation.attach(lifecycle, index: 0)
        await run(operation)
        // corelibs hands a slot to the next operation as soon as it reads `isFinished`; the runner frees the
        // lane in `operationWillFinish`, so the slot must still be taken then.
        #expect(lifecycle.finishedWhenTold == [false])
    }

    @Test func lanesNeverOutnumberTheQueueLimit() async throws {
        let items = (0..<2_000).map(String.init).joined(separator: ", ")
        let report = try await ScriptedTask.run(
            "a: { type: scripted, forEach: [\(items)] }", options: RunOptions(maxConcurrentDefault: 2)
        ) { operation, _ in
            operation.finish(.success(nil))
        }
        #expect(report.exitCode == 0)
        let lanes = Set(report.nodes.flatMap(\.spans).map(\.lane))
        #expect(lanes.isSubset(of: [0, 1]), "lanes \(lanes.sorted()) for a queue of 2 slots")
    }

    // MARK: A runner runs once

    @Test func aSecondRunStopsWithAClearMessage() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let plan = try TestWorkflow.plan(
                "version: 1\ntasks:\n  a: { type: noop }", registry: TaskRegistry.builtIn)
            let runner = Runner(plan: plan)
            _ = runner.run()
            _ = runner.run()
        }.map { result in
            let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(stderr.contains("Runner.run() called twice"), "stderr: \(stderr)")
        }
    }

    // MARK: No silent fallbacks

    @Test func aPlanCarriesEveryTasksTypeAndQueue() throws {
        let plan = try TestWorkflow.plan(
            """
            version: 1
            queues: { io: { maxConcurrent: 2 } }
            tasks:
              a: { type: sleep, duration: 1ms, queue: io }
              b: { type: noop, dependsOn: a }
            """, registry: TaskRegistry.builtIn)
        #expect(plan.taskTypes.map(\.name) == ["sleep", "noop"])
        #expect(plan.queueIndices.map { plan.workflow.queues.elements[$0].key } == ["io", "default"])
    }

    @Test(arguments: [
        ("a: { type: nope }", "unknown task type 'nope'"),
        ("a: { type: noop, queue: nowhere }", "unknown queue 'nowhere'"),
    ])
    func aTaskWhoseTypeOrQueueIsUnknownGetsNoPlan(task: String, message: String) {
        let result = WorkflowLoader(registry: TaskRegistry.builtIn).plan(
            bytes: Array("version: 1\ntasks:\n  \(task)\n".utf8), path: "w.yaml")
        #expect(result.plan == nil)
        #expect(result.diagnostics.all.contains { $0.severity == .error && $0.message.contains(message) })
    }
}

// MARK: - Test doubles

/// `type: scripted`: each operation runs the test's closure, which finishes it (or not) as the test needs.
private struct ScriptedTask: TaskType {
    typealias Script = @Sendable (ScriptedOperation, Runner) -> Void

    let script: Script
    let runner: LockedBox<Runner?>

    var name: String { "scripted" }
    var summary: String { "Runs a test's script." }
    var consumes: InputRequirement { .anything }
    var provides: ProviderKind? { nil }

    func makeOperation(_ context: NodeContext) -> FlowOperation {
        let runner = runner
        return ScriptedOperation(context: context) { operation, _ in
            guard let current = runner.withLock({ $0 }) else { return }
            script(operation, current)
        }
    }

    /// Plans `tasks` (YAML lines under `tasks:`) and runs them with `script` as every node's work.
    static func run(
        _ tasks: String, options: RunOptions = RunOptions(), script: @escaping Script
    ) async throws -> RunReport {
        let box = LockedBox<Runner?>(nil)
        let registry = TaskRegistry.builtIn.adding(ScriptedTask(script: script, runner: box))
        let plan = try TestWorkflow.plan("version: 1\ntasks:\n  \(tasks)\n", registry: registry)
        let runner = Runner(plan: plan, options: options)
        box.withLock { $0 = runner }
        return await runner.run()
    }
}

/// An operation whose work is a closure, and which counts its `didCancel()` calls.
private final class ScriptedOperation: FlowOperation, @unchecked Sendable {
    private let script: @Sendable (ScriptedOperation, Runner?) -> Void
    private let cancels = LockedBox(0)
    private let meeting = LockedBox<Rendezvous?>(nil)

    init(context: NodeContext, script: @escaping @Sendable (ScriptedOperation, Runner?) -> Void) {
        self.script = script
        super.init(context: context)
    }

    override func execute() { script(self, nil) }

    override func didCancel() { cancels.withLock { $0 += 1 } }

    var didCancelCalls: Int { cancels.withLock { $0 } }

    /// While set, reading `isCancelled` waits for the other parties to read it too.
    var rendezvous: Rendezvous? {
        get { meeting.withLock { $0 } }
        set { meeting.withLock { $0 = newValue } }
    }

    override var isCancelled: Bool {
        // Read first, then wait: both readers see the value from before either of them cancelled.
        let cancelled = super.isCancelled
        rendezvous?.arrive()
        return cancelled
    }
}

/// Holds each arriving thread until `parties` have arrived, or a second has passed.
private final class Rendezvous: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0

    init(parties: Int) { self.parties = parties }

    func arrive() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: 1)
        while arrived < parties, condition.wait(until: deadline) {}
    }
}

/// Records, for each end it is told of, whether Foundation could already see the operation finished.
private final class RecordingLifecycle: OperationLifecycle, @unchecked Sendable {
    private let seen = LockedBox<[Bool]>([])

    var finishedWhenTold: [Bool] { seen.withLock { $0 } }

    func operationDidStart(_ operation: FlowOperation, index: Int) -> Bool { true }

    func operationWillFinish(_ operation: FlowOperation, index: Int) {
        let finished = operation.isFinished
        seen.withLock { $0.append(finished) }
    }

    func operationDidFinish() {}
}
