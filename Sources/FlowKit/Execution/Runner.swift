import Foundation
import Logging
import OrderedCollections
import Synchronization

/// Runs a ``Plan``: one ``FlowOperation`` per node attempt, on named `OperationQueue`s.
///
/// Every plan edge is an `addDependency`, so operations find their inputs among their dependencies. But an
/// operation is handed to its queue only once all its dependencies have *succeeded*: corelibs'
/// `OperationQueue` rescans every pending operation whenever one finishes, which makes a graph added up
/// front quadratic (a 10,000-node chain: 24 s) — enqueued when ready it is linear (0.15 s). The same
/// bookkeeping gives the run semantics Foundation lacks: `addDependency` means "finished", never
/// "succeeded", so skips, retries, timeouts and cancellation are decided here from results.
///
/// Outputs are released as soon as every consumer of a node has finished, so memory stays flat.
public final class Runner: OperationLifecycle, @unchecked Sendable {
    let plan: Plan
    private let options: RunOptions
    let queues: QueueSet
    private let failFast: Bool
    private let plannedNodes: PlannedNodes
    let state: Mutex<RunState>
    private let done = DispatchSemaphore(value: 0)
    /// How the asynchronous `run()` resumes: a callback for when the run ends, or the news that it has
    /// (a run cancelled before it started ends before `run()` is called).
    private let whenDone = Mutex<(ended: Bool, callback: (@Sendable () -> Void)?)>((false, nil))
    /// How many threads are between reading a change of the state and having carried out its effects (for an
    /// operation: until Foundation has let go of it). `run()` returns once the state has reached its end *and*
    /// this is back to zero, so nothing of the run — an event, an output release, a queue's last hold on an
    /// operation — happens after it returned.
    private let busy = Atomic<Int>(0)
    /// Whether the state has reached its end: every node final.
    private let ended = Atomic<Bool>(false)
    /// Whether `done` was signalled (once).
    private let signalled = Atomic<Bool>(false)
    /// Whether `run()` was called: a runner runs its plan once.
    private let claimed = Atomic<Bool>(false)
    private let startedAt: Date
    private let originSeconds: Double
    /// The nodes restored from the store (``RunOptions/restoredNodes``).
    private let restored: Set<Int>
    /// Whether every result is whole: no task runs when its inputs failed (`runIf` other than `success`), so
    /// a node that succeeds need not ask the run state whether it made a partial result.
    private let resultsAreWhole: Bool

    /// Creates a runner for a plan.
    public init(plan: Plan, options: RunOptions = RunOptions()) {
        self.plan = plan
        self.options = options
        let queues =
            options.sharedQueues ?? QueueSet(workflow: plan.workflow, defaultLimit: options.maxConcurrentDefault)
        self.queues = queues
        self.failFast = options.failFast ?? plan.workflow.failFast
        let queueNames = Array(plan.workflow.queues.keys)
        self.plannedNodes = PlannedNodes(plan: plan, options: options)
        self.state = Mutex(
            RunState(
                plan: plan, queueLimits: queueNames.map { queues.limits[$0] ?? 1 },
                recordsEvents: options.observer != nil, quietNodes: options.quietNodes))
        let origin = options.sharedOrigin ?? RunOrigin(clock: options.clock)
        self.startedAt = origin.date
        self.originSeconds = origin.seconds
        self.restored = Set(options.restoredNodes)
        self.resultsAreWhole = plan.workflow.tasks.allSatisfy { $0.runIf == .success }
    }

    /// Runs every node and blocks the calling thread until all have finished, failed, been skipped or
    /// cancelled.
    ///
    /// From Swift concurrency, call `await run()` instead: blocking a thread of the cooperative pool starves
    /// the Dispatch threads the operations run on, and on Linux the pool only grows after a second.
    /// - Returns: The report of the run.
    ///
    /// A runner runs its plan once: calling `run()` a second time is a programmer error and stops the
    /// process with a message (make a new `Runner` for another run).
    public func run() -> RunReport {
        claimTheRun()
        if plan.nodes.isEmpty { return report() }
        begin()
        done.wait()
        return report()
    }

    /// Runs every node without holding a thread while they run. Cancelling the calling task cancels the run,
    /// as ``cancel()`` does. Like the blocking form, it may be called once per runner.
    /// - Returns: The report of the run.
    public func run() async -> RunReport {
        claimTheRun()
        if plan.nodes.isEmpty { return report() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let endedAlready = whenDone.withLock { state in
                    if !state.ended { state.callback = { continuation.resume() } }
                    return state.ended
                }
                if endedAlready { return continuation.resume() }
                begin()
            }
        } onCancel: {
            cancel()
        }
        return report()
    }

    /// Stops the process if `run()` was already called: a second run would wait forever for a state that has
    /// already ended.
    private func claimTheRun() {
        let first = claimed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        // `fatalError`, not `precondition`: optimised builds drop a precondition's message, and this one says
        // what to do instead.
        if !first {
            fatalError("Runner.run() called twice: a Runner runs its plan once; make a new Runner for another run")
        }
    }

    /// Makes the first nodes ready and hands them to their queues.
    private func begin() {
        enter()
        apply(
            state.withLock {
                $0.start(
                    cached: options.cachedNodes, restored: options.restoredNodes, skipped: options.skippedNodes,
                    unneeded: options.unneededNodes, filesRestored: options.filesRestored,
                    restoredFrom: options.restoredFrom)
            })
        leave()
    }

    /// Cancels the run: queued nodes never start, running ones see `isCancelled`, nothing new is launched.
    ///
    /// Safe to call from any thread, any number of times (a signal handler calls it).
    public func cancel() {
        cancel(interrupted: true)
    }

    /// Counts of nodes per queue and status, for a progress display.
    public func progress() -> [String: [NodeStatus: Int]] {
        let counts = state.withLock { $0.counts }
        let names = Array(plan.workflow.queues.keys)
        var result: [String: [NodeStatus: Int]] = [:]
        for (queueIndex, name) in names.enumerated() {
            var byStatus: [NodeStatus: Int] = [:]
            for (statusIndex, status) in NodeStatus.allCases.enumerated() {
                byStatus[status] = counts[queueIndex * NodeStatus.allCases.count + statusIndex]
            }
            result[name] = byStatus
        }
        return result
    }

    /// Counts of nodes per task and status, in the workflow's order of tasks, for a log's progress lines.
    public func progressByTask() -> OrderedDictionary<String, [NodeStatus: Int]> {
        let counts = state.withLock { $0.taskCounts }
        var result = OrderedDictionary<String, [NodeStatus: Int]>()
        for (taskIndex, task) in plan.workflow.tasks.enumerated() {
            var byStatus: [NodeStatus: Int] = [:]
            for (statusIndex, status) in NodeStatus.allCases.enumerated() {
                byStatus[status] = counts[taskIndex * NodeStatus.allCases.count + statusIndex]
            }
            result[task.id.value] = byStatus
        }
        return result
    }

    /// The time since the run started.
    public var elapsed: Duration { .seconds(elapsedSeconds) }

    /// The time since the run started, in seconds: what timestamps and ``elapsed`` read.
    private var elapsedSeconds: Double { options.clock.nowSeconds - originSeconds }

    // MARK: Launching

    /// Hands admitted nodes to their queues: one fresh operation per node, edges added for provider lookup,
    /// then one `addOperations` per queue.
    private func launch(_ admissions: SmallList<RunState.Admission>) {
        guard admissions.count > 1 else {
            // The usual case on a completion: one node, no batching to do.
            for admission in admissions {
                let operation = makeOperation(admission)
                operationQueue(of: admission.index).addOperations([operation], waitUntilFinished: false)
            }
            return
        }
        // Usually one queue: a short list beats a dictionary here.
        var batches: [(queue: OperationQueue, operations: [Operation])] = []
        for admission in admissions {
            let operation = makeOperation(admission)
            let queue = operationQueue(of: admission.index)
            if let slot = batches.firstIndex(where: { $0.queue === queue }) {
                batches[slot].operations.append(operation)
            } else {
                batches.append((queue, [operation]))
            }
        }
        for batch in batches {
            batch.queue.addOperations(batch.operations, waitUntilFinished: false)
        }
    }

    /// The `OperationQueue` a node runs on.
    private func operationQueue(of index: Int) -> OperationQueue {
        queues.queues[Int(plan.graph.queue[index])]
    }

    private func makeOperation(_ admission: RunState.Admission) -> FlowOperation {
        let index = admission.index
        let taskIndex = plan.nodes[index].taskIndex
        // Nodes whose parameters depend on their item get them resolved once, here — a node whose parameters do
        // not resolve fails with the diagnostics instead of running; the others read every field from the plan
        // when asked.
        let operation: FlowOperation
        if plan.sharedParameters[taskIndex] != nil {
            operation = plan.taskTypes[taskIndex].makeOperation(
                NodeContext(planned: plannedNodes, index: index, attempt: admission.attempt))
        } else {
            let (fields, failure) = plannedNodes.fields(of: index, attempt: admission.attempt)
            operation =
                failure.map { FailedOperation(context: NodeContext(fields: fields), failure: $0) }
                ?? plan.taskTypes[taskIndex].makeOperation(NodeContext(fields: fields))
        }
        // Foundation's setter takes the operation's lock: skip it for the default. A node the app prioritised
        // goes ahead of the operations its queue already holds, as it went ahead in the ready heap.
        let priority = plan.workflow.tasks[taskIndex].priority
        if admission.prioritized {
            operation.queuePriority = .veryHigh
        } else if priority != .normal {
            operation.queuePriority = priority.foundationValue
        }
        for dependency in admission.dependencies { operation.addDependency(dependency) }
        if restored.contains(index), let restore = options.restore {
            let runsInstead = options.runsInstead
            operation.restore {
                if let runsInstead, runsInstead(index) { return nil }
                return switch restore(index) {
                case .success(let value): .success(value)
                case .failure(let failure): .failure(failure)
                }
            }
        }
        operation.attach(self, index: index)
        let cancellation = state.withLock { $0.store(operation, for: index) }
        // A cancel that raced with this launch still reaches the operation: it starts, sees it, and ends.
        if let cancellation { operation.cancel(reason: cancellation) }
        return operation
    }

    // MARK: OperationLifecycle

    func operationDidStart(_ operation: FlowOperation, index: Int) -> Bool {
        let now = elapsedSeconds
        guard let attempt = state.withLock({ $0.didStart(index, at: now) }) else { return false }
        if let timeout = plan.workflow.tasks[plan.nodes[index].taskIndex].timeout {
            let cancelTimer = options.clock.schedule(after: timeout) { [weak operation] in
                operation?.cancel(reason: .timedOut(timeout))
            }
            state.withLock { $0.setTimer(cancelTimer, for: index) }
        }
        emit(index, .running, attempt: attempt)
        return true
    }

    func operationWillFinish(_ operation: FlowOperation, index: Int) {
        enter()  // left in `operationDidFinish`, once Foundation has let go of the operation
        let now = elapsedSeconds
        let taskIndex = plan.nodes[index].taskIndex
        let result = retryable(result(of: operation, index: index), taskIndex: taskIndex)
        let artifact = options.previews ? operation.artifact : nil
        // A node of `restoredNodes` that executed instead (``RunOptions/runsInstead``) is journaled as one that ran.
        let isRestored = restored.contains(index)
        let executed = !isRestored || !operation.wasRestored
        if case .success = result, executed, let succeeded = options.nodeSucceeded {
            succeeded(index, operation, resultsAreWhole || !state.withLock { $0.recordsPartialResult(index) })
        }
        if case .skipped(let cause) = result, executed, let skipped = options.nodeSkipped { skipped(index, cause) }
        let warnings = operation.warnings
        // A finished operation has read its inputs: drop its edges. Otherwise each operation keeps its
        // dependencies alive, a chain stays in memory as one linked list, and freeing it recurses per link.
        operation.removeAllDependencies()
        var effects = RunState.Effects()
        state.withLock { state in
            if isRestored, executed { state.executedInstead(index) }
            if let artifact { state.record(artifact, for: index) }
            state.endAttempt(index, at: now)
            if !warnings.isEmpty { state.recordWarnings(warnings, of: index) }
            state.finish(
                index, result: result, retries: plan.workflow.tasks[taskIndex].retries,
                failFast: failFast && !plan.workflow.tasks[taskIndex].continueOnError, retry: options.retry,
                into: &effects)
        }
        apply(effects)
    }

    /// A failure as the retry loop should see it: not retryable when the task's `retryOn` (or, without it,
    /// the failure itself) says another attempt would only repeat it; a server's `Retry-After` at most the
    /// task's timeout.
    private func retryable(_ result: FlowOperation.Outcome, taskIndex: Int) -> FlowOperation.Outcome {
        // Only failures read the task: a success touches none of its fields.
        guard case .failure(var failure) = result, plan.workflow.tasks[taskIndex].retries > 0 else { return result }
        failure.isTransient = RetryRule.allows(failure, under: plan.workflow.tasks[taskIndex].retryOn)
        if let wait = failure.retryAfter {
            failure.retryAfter = min(wait, plan.workflow.tasks[taskIndex].timeout ?? options.retry.maxDelay)
        }
        return .failure(failure)
    }

    func operationDidFinish() {
        leave()
    }

    // MARK: The end of the run

    func enter() {
        busy.add(1, ordering: .sequentiallyConsistent)
    }

    /// Signals `done` when this was the last thread out and the state has ended. `ended` is only ever set by a
    /// thread that is itself inside, so its own `leave` or a later one sees both.
    func leave() {
        let (_, remaining) = busy.subtract(1, ordering: .sequentiallyConsistent)
        guard remaining == 0, ended.load(ordering: .sequentiallyConsistent) else { return }
        if signalled.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            let callback = whenDone.withLock { state in
                state.ended = true
                return state.callback
            }
            callback?()
            done.signal()
        }
    }

    /// The outcome the runner records for an attempt, without its output (that stays with the operation),
    /// telling a timeout from a cancelled run.
    ///
    /// A failure is the operation's own word and wins over any cancel that raced it: an operation cancelled
    /// while it failed still failed for its own cause. Only an operation that stopped because it was cancelled
    /// reads the reason, so a timeout is reported as one.
    private func result(of operation: FlowOperation, index: Int) -> FlowOperation.Outcome {
        let (ending, reason) = operation.endingAndReason
        let nodeID = plan.nodes[index].id
        let location = plan.workflow.tasks[plan.nodes[index].taskIndex].location
        switch ending {
        case .succeeded?:
            return .success(nil)
        case .failed?:
            var failure = operation.failure ?? NodeFailure(.internalError, "failed without a cause", node: nodeID)
            if failure.nodeID.isEmpty { failure.nodeID = nodeID }
            if failure.location == nil { failure.location = location }
            return .failure(failure)
        case .skipped?:
            return .skipped(operation.failure?.message ?? "")
        default:
            if case .timedOut(let limit)? = reason {
                return .failure(
                    NodeFailure(
                        .timedOut, "timed out after \(limit.shortDescription)", node: nodeID, location: location))
            }
            return .cancelled
        }
    }

    // MARK: Effects

    func apply(_ effects: RunState.Effects) {
        effects.cancelTimer?()
        if !effects.skippedBelow.isEmpty, let skipped = options.nodeSkippedBelow {
            for index in effects.skippedBelow { skipped(index) }
        }
        for operation in effects.released { operation.releaseOutput() }
        for event in effects.events { emit(event) }
        if let retry = effects.retry {
            options.clock.schedule(after: retry.delay) { [weak self] in
                guard let self else { return }
                self.enter()
                self.apply(self.state.withLock { $0.retryDue(retry.index) })
                self.leave()
            }
        }
        if !effects.admitted.isEmpty { launch(effects.admitted) }
        if effects.cancelRun { cancel(interrupted: false) }
        if effects.finished { ended.store(true, ordering: .sequentiallyConsistent) }
    }

    private func cancel(interrupted: Bool) {
        enter()
        let (live, effects) = state.withLock { state in
            defer { resumeOperationQueues() }  // under the lock: a later `suspend(queue:)` sees the run over
            return state.cancelAll(interrupted: interrupted)
        }
        // Outside the lock: cancelling may finish an operation synchronously, which re-enters the runner.
        for operation in live { operation.cancel(reason: .runCancelled) }
        apply(effects)
        leave()
    }

    private func emit(_ index: Int, _ status: NodeStatus, attempt: Int) {
        guard options.observer != nil, !options.quietNodes.contains(index) else { return }
        let node = plan.nodes[index]
        emit(
            RunEvent(
                nodeID: node.id, queue: plan.workflow.tasks[node.taskIndex].queueName, status: status, attempt: attempt)
        )
    }

    private func emit(_ event: RunEvent) {
        options.observer?(event)
    }

    // MARK: Report

    private func report() -> RunReport {
        let now = elapsedSeconds
        // A copy of the final state (its arrays are shared, not copied): the report makes each node from it
        // when read, so the records are not held twice.
        let final = state.withLock { $0 }
        var report = RunReport(
            workflow: plan.workflow.name, path: plan.workflow.path, startedAt: startedAt, duration: now,
            interrupted: final.interrupted,
            nodes: RunReport.Nodes(
                count: plan.nodes.count, node: { final.reportNode($0) }, status: { final.nodes[$0].status },
                continuesOnError: { [plan] in plan.workflow.tasks[plan.nodes[$0].taskIndex].continueOnError }),
            queueLimits: queues.limits)
        report.taskList = .specs(plan.workflow.tasks)
        return report
    }
}
