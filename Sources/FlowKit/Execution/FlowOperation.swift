import Foundation
import Synchronization

/// The base class of every node's operation: an asynchronous `Operation` with a state machine that is
/// correct on swift-corelibs-foundation.
///
/// Subclasses override ``execute()`` and call ``finish(_:)`` exactly once, from any thread, when the work is
/// done — synchronously inside `execute()` for CPU work, or later from a callback for I/O.
///
/// ## Implementation requirements
///
/// - Read inputs with ``input(_:)`` / ``inputs(_:)``; they look among `dependencies` for operations that
///   conform to a provider protocol, honouring the task's `input:` key. Never use global state.
/// - Check `isCancelled` between stages of long work and finish with ``Outcome/cancelled`` when it is set.
///   Work that runs on after `execute()` returns (a transfer, a child process, a timer) is stopped through
///   ``whenCancelled(_:)``, which also covers a cancel that arrives while the work is being set up.
/// - Keep every mutable stored property inside a lock (`Mutex`), as the compiler checks nothing for an
///   `@unchecked Sendable` class; restate `@unchecked Sendable` on the subclass.
/// - An operation runs once. Retries are fresh operations made by ``TaskType/makeOperation(_:)``.
///
/// ```swift
/// final class UppercaseOperation: FlowOperation, DataProvider, @unchecked Sendable {
///     override func execute() {
///         guard let input = input((any DataProvider).self)?.providedData else {
///             return finish(.failure(context.failure(.invalidInput, "no input data")))
///         }
///         finish(.success(DataPayload(Data(String(decoding: input.bytes, as: UTF8.self).uppercased().utf8),
///                                     source: input.source)))
///     }
///     var providedData: DataPayload? { output(as: DataPayload.self) }
/// }
/// ```
open class FlowOperation: Operation, @unchecked Sendable {
    /// How an attempt ended: what a task hands over with ``finish(_:)``, and what the runner records for the
    /// node. Its ``status`` is the same ending without the payload, in the vocabulary reports and progress use.
    public enum Outcome: Sendable {
        /// The work is done; the value is the node's output (or `nil` for tasks that provide nothing).
        case success((any Sendable)?)
        /// The work failed.
        case failure(NodeFailure)
        /// The operation saw `isCancelled` and stopped.
        case cancelled
        /// The node had nothing to do for its input, and says why (a `resize` that would enlarge, under
        /// `withoutEnlargement: skip`): it ends `skipped` with that cause and provides nothing. Its dependents are
        /// skipped in turn and a gather after it runs over the items that remain; the run does not fail.
        case skipped(String)
    }

    /// Why an operation was cancelled, so a timeout can be told from Ctrl-C.
    public enum CancellationReason: Sendable, Equatable {
        case runCancelled
        case timedOut(Duration)
        /// The embedding app cancelled this node or its item (``Runner/cancel(item:cause:)``), with this cause.
        case nodeCancelled(String)
    }

    /// Where the operation is in its life. `finishing` is the moment between ``finish(_:)`` recording the
    /// outcome and Foundation being told: the runner does its bookkeeping then, while the operation still
    /// holds its queue slot, so the runner never learns of a freed slot after Foundation has reused it.
    private enum Phase: Sendable {
        case ready, executing, finishing, finished

        /// Whether ``finish(_:)`` has recorded an outcome.
        var hasEnded: Bool { self == .finishing || self == .finished }
    }

    private struct State: Sendable {
        var phase = Phase.ready
        // The outcome, kept apart: copying an `Outcome` goes through a multi-payload enum's value witness,
        // and the runner reads the ending of every node. One of `succeeded`, `failed`, `cancelled` and `skipped`.
        var ending: NodeStatus?
        var output: (any Sendable)?
        var failure: NodeFailure?
        var artifact: Artifact?
        /// Why the operation was cancelled; set once, by the first cancel that found it not yet finishing.
        var cancellationReason: CancellationReason?
        /// What the node tolerated but the user should know (e.g. a decoder's warning), for the report.
        var warnings: [String] = []
        /// Dependencies that had already finished when added: edges for input lookup only.
        var finishedDependencies = SmallList<Operation>()
        /// Identities of `finishedDependencies`, kept once there are many (a gather over thousands of items).
        var finishedIdentities: Set<ObjectIdentifier>?
        /// Whether any dependency went to Foundation (was unfinished when added).
        var hasFoundationDependencies = false
        /// The runner watching this operation, and the node's index in its plan.
        var lifecycle: (observer: any OperationLifecycle, index: Int)?
        /// For a node restored from the store: what gives its output back, run instead of ``execute()``; `nil`
        /// from it executes the node after all (what it was decided from changed during the run).
        var restoring: (@Sendable () -> Outcome?)?
        /// Whether ``restoring`` gave the outcome: the node did not execute.
        var wasRestored = false
        /// What stops the work the operation started (``whenCancelled(_:)``); dropped once it has run or the
        /// operation has finished.
        var stopWork: (@Sendable () -> Void)?
    }

    // Value and lock together (NIOLockedValueBox's shape): every mutable property lives here, under one
    // lock, so the per-node path of a run takes it as rarely as possible.
    private let state = Mutex(State())

    /// The node this operation runs.
    public let context: NodeContext

    /// Creates the operation for one attempt of one node.
    public init(context: NodeContext) {
        self.context = context
        super.init()
        name = context.nodeID
    }

    // MARK: Subclass API

    /// Does the node's work. Call ``finish(_:)`` exactly once, now or later.
    open func execute() {
        finish(
            .failure(context.failure(.internalError, "task type '\(context.typeName)' does not implement execute()")))
    }

    /// Called once when the operation is cancelled while it executes.
    ///
    /// Runs on the thread that called `cancel()`, without any lock of this operation held. To stop work the
    /// operation started, prefer ``whenCancelled(_:)``: a cancel can also arrive while that work is being set
    /// up, before there is anything for this method to stop.
    open func didCancel() {}

    /// Hands the operation's cancellation to work it started and that goes on after `execute()` returns — a
    /// download, a child process, a timer.
    ///
    /// Call it right after starting the work. If the operation was cancelled before — even while the work was
    /// being created, when nothing could have stopped it yet — `stop` runs at once, on this thread; otherwise on
    /// the thread of the first cancel, without any lock of this operation held. It runs at most once and never
    /// once the operation has finished, when it is dropped, so an operation → work → completion → operation
    /// cycle ends there. `stop` must tolerate work that has just ended on its own.
    ///
    /// ```swift
    /// import Synchronization
    ///
    /// final class PauseOperation: FlowOperation, @unchecked Sendable {
    ///     private let ended = Mutex(false)
    ///
    ///     override func execute() {
    ///         DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [self] in end(.success(nil)) }
    ///         whenCancelled { [self] in end(.cancelled) }
    ///     }
    ///
    ///     /// Finishes once, with whichever comes first: the end of the pause or a cancel.
    ///     private func end(_ outcome: Outcome) {
    ///         let first = ended.withLock { ended in
    ///             defer { ended = true }
    ///             return !ended
    ///         }
    ///         if first { finish(outcome) }
    ///     }
    /// }
    /// ```
    public final func whenCancelled(_ stop: @escaping @Sendable () -> Void) {
        let stopNow = state.withLock { state -> Bool in
            guard !state.phase.hasEnded else { return false }
            guard state.cancellationReason == nil else { return true }
            state.stopWork = stop
            return false
        }
        if stopNow { stop() }
    }

    /// Ends the operation: records the outcome, then tells the queue.
    ///
    /// Calling it twice is a programmer error (asserted in debug builds, ignored in release builds).
    public final func finish(_ outcome: Outcome) {
        // Keep Darwin's KVO contract too; on corelibs `willChangeValue` does nothing.
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        let (first, lifecycle) = state.withLock { state -> (Bool, (observer: any OperationLifecycle, index: Int)?) in
            guard !state.phase.hasEnded else { return (false, nil) }
            // Not `finished` yet: corelibs reads `isFinished` whenever it schedules, and would hand this slot to
            // the next operation before the runner has freed it (more trace lanes than queue slots).
            state.phase = .finishing
            state.stopWork = nil
            switch outcome {
            case .success(let output):
                state.ending = .succeeded
                state.output = output
            case .failure(let failure):
                state.ending = .failed
                state.failure = failure
            case .cancelled:
                state.ending = .cancelled
            case .skipped(let cause):
                state.ending = .skipped
                state.failure = NodeFailure(.notNeeded, cause)
            }
            return (true, state.lifecycle)
        }
        assert(first, "finish(_:) called twice on \(context.nodeID)")
        guard first else { return }
        // While the slot is still ours: the runner records the result, frees the lane and launches the
        // dependents, so they start while Foundation does its own bookkeeping (a chain overlaps the two).
        if let (observer, index) = lifecycle { observer.operationWillFinish(self, index: index) }
        state.withLock { $0.phase = .finished }
        // corelibs re-reads `isFinished` inside `didChangeValue`, so the flag must be set — and our lock
        // released — before these calls; only then does it free the queue slot.
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
        if let (observer, _) = lifecycle { observer.operationDidFinish() }
    }

    /// Records something the node tolerated but the user should know, e.g. a decoder's warning about a damaged
    /// but readable file; the run report lists it under the node. Call it before ``finish(_:)``.
    public final func warn(_ message: String) {
        state.withLock { $0.warnings.append(message) }
    }

    /// The warnings recorded with ``warn(_:)``, in order.
    package final var warnings: [String] { state.withLock { $0.warnings } }

    /// Finishes as cancelled if the operation has been cancelled.
    /// - Returns: Whether it finished; return from `execute()` when it did.
    @discardableResult
    public final func finishIfCancelled() -> Bool {
        guard isCancelled else { return false }
        finish(.cancelled)
        return true
    }

    /// The output given to ``finish(_:)``, if it is of the given type and not yet released.
    public final func output<T>(as type: T.Type) -> T? {
        state.withLock { $0.output } as? T
    }

    /// Drops the output; the runner calls this once every consumer has finished.
    ///
    /// The output is freed now even while Foundation still holds the operation (a queue keeps a finished
    /// operation until its own bookkeeping is done); ``outcome`` reads `.success(nil)` from then on.
    package final func releaseOutput() {
        let released = state.withLock { state -> (any Sendable)? in
            defer { state.output = nil }
            return state.output
        }
        _ = released  // freed here, outside the lock
    }

    /// Records the file this attempt wrote, for reports (see ``Artifact``). Call it before ``finish(_:)``;
    /// make the preview only when ``NodeContext/previews`` is set, since it costs time on every node.
    public final func record(_ artifact: Artifact) {
        state.withLock { $0.artifact = artifact }
    }

    /// The file recorded with ``record(_:)``, if any.
    package final var artifact: Artifact? { state.withLock { $0.artifact } }

    // MARK: Inputs

    /// The one dependency that conforms to a provider protocol, honouring the task's `input:` key.
    ///
    /// ```swift
    /// final class ByteCountOperation: FlowOperation, @unchecked Sendable {
    ///     override func execute() {
    ///         let data = input((any DataProvider).self)?.providedData
    ///         finish(.success(data?.bytes.count))
    ///     }
    /// }
    /// ```
    public final func input<Provider>(_ type: Provider.Type) -> Provider? {
        inputs(type).first
    }

    /// Every dependency that conforms to a provider protocol, in item order (for `gather` tasks).
    public final func inputs<Provider>(_ type: Provider.Type) -> [Provider] {
        // `dependencies` is a set on corelibs: sort so gather tasks see items in order.
        dependencies
            .compactMap { $0 as? FlowOperation }
            .filter { context.inputTaskID == nil || $0.context.taskID == context.inputTaskID }
            .sorted {
                ($0.context.taskID, $0.context.itemIndex ?? -1) < ($1.context.taskID, $1.context.itemIndex ?? -1)
            }
            .compactMap { $0 as? Provider }
    }

    // MARK: Dependencies

    /// Adds a dependency. A dependency that has already finished is recorded here rather than in
    /// Foundation: it cannot delay the start, so it only serves input lookup, and corelibs' own
    /// `addDependency` scans every existing dependency — quadratic for a `gather` over 20,000 items.
    /// Unfinished dependencies go to Foundation as usual, so operations queued by hand still wait.
    open override func addDependency(_ operation: Operation) {
        guard Self.hasEnded(operation) else {
            state.withLock { $0.hasFoundationDependencies = true }
            return super.addDependency(operation)
        }
        state.withLock { state in
            // Set semantics, as Foundation's: a short scan for the usual handful, a set for wide fan-ins.
            if state.finishedIdentities != nil {
                // In place: copying the set out to insert would copy all of it, every time.
                guard state.finishedIdentities?.insert(ObjectIdentifier(operation)).inserted == true else { return }
            } else {
                guard !state.finishedDependencies.contains(where: { $0 === operation }) else { return }
                if state.finishedDependencies.count >= 16 {
                    state.finishedIdentities = Set(
                        state.finishedDependencies.map(ObjectIdentifier.init) + [ObjectIdentifier(operation)])
                }
            }
            state.finishedDependencies.append(operation)
        }
    }

    /// Removes a dependency, and forgets it among the finished ones whose outputs the operation reads.
    open override func removeDependency(_ operation: Operation) {
        let recorded = state.withLock { state -> Bool in
            guard state.finishedDependencies.removeFirst(where: { $0 === operation }) else { return false }
            state.finishedIdentities?.remove(ObjectIdentifier(operation))
            return true
        }
        if !recorded { super.removeDependency(operation) }
    }

    /// Every dependency, whether Foundation tracks it or it was already finished when added.
    open override var dependencies: [Operation] {
        let (finished, foundation) = state.withLock { ($0.finishedDependencies, $0.hasFoundationDependencies) }
        guard foundation else { return Array(finished) }
        return finished.isEmpty ? super.dependencies : super.dependencies + finished
    }

    /// Whether an operation's outcome is known: finished, or a flow operation that is finishing (its runner
    /// launches dependents at that moment, and they read its output, which is already recorded).
    private static func hasEnded(_ operation: Operation) -> Bool {
        guard let flow = operation as? FlowOperation else { return operation.isFinished }
        return flow.state.withLock { $0.phase.hasEnded }
    }

    /// Drops every dependency at once; the runner calls this when the operation has finished.
    final func removeAllDependencies() {
        let foundation = state.withLock { state -> Bool in
            state.finishedDependencies.removeAll()
            state.finishedIdentities = nil
            return state.hasFoundationDependencies
        }
        if foundation {
            for operation in super.dependencies { super.removeDependency(operation) }
        }
    }

    // MARK: State

    /// How the operation ended, once it has.
    package final var outcome: Outcome? {
        state.withLock { state -> Outcome? in
            switch state.ending {
            case .succeeded?: .success(state.output)
            case .failed?: state.failure.map { .failure($0) }
            case .cancelled?: .cancelled
            case .skipped?: .skipped(state.failure?.message ?? "")
            default: nil
            }
        }
    }

    /// Why the operation was cancelled, if it was.
    public final var cancellationReason: CancellationReason? { state.withLock { $0.cancellationReason } }

    /// How the operation ended and why it was cancelled, if it was, read together.
    final var endingAndReason: (NodeStatus?, CancellationReason?) {
        state.withLock { ($0.ending, $0.cancellationReason) }
    }

    /// The failure given to ``finish(_:)``, if it failed.
    final var failure: NodeFailure? { state.withLock { $0.failure } }

    /// Cancels the operation, remembering why.
    ///
    /// Only the first cancel counts, and only while the operation has not begun to finish: an operation that
    /// already has an outcome keeps it (a failure racing Ctrl-C, fail-fast or its own timeout stays a failure),
    /// and ``didCancel()`` runs at most once.
    package final func cancel(reason: CancellationReason) {
        let cancelled = state.withLock { state -> (wasExecuting: Bool, stopWork: (@Sendable () -> Void)?)? in
            guard state.cancellationReason == nil, !state.phase.hasEnded else { return nil }
            state.cancellationReason = reason
            defer { state.stopWork = nil }
            return (state.phase == .executing, state.stopWork)
        }
        guard let cancelled else { return }
        super.cancel()
        guard cancelled.wasExecuting else { return }
        cancelled.stopWork?()
        didCancel()
    }

    /// Cancels the operation for a cancelled run (``CancellationReason/runCancelled``); ``didCancel()`` runs if it
    /// was executing.
    public final override func cancel() {
        cancel(reason: .runCancelled)
    }

    /// `true`: an operation finishes when its work calls `finish`, not when ``start()`` returns.
    public final override var isAsynchronous: Bool { true }
    /// Whether the operation has started and not yet finished.
    public final override var isExecuting: Bool {
        state.withLock { $0.phase == .executing || $0.phase == .finishing }
    }
    /// Whether the operation has finished, with an output or a failure.
    public final override var isFinished: Bool { state.withLock { $0.phase == .finished } }

    /// Starts the node's work, or finishes it at once when it was cancelled while queued.
    public final override func start() {
        // corelibs starts an operation cancelled while queued at once, even before its dependencies have
        // finished: check first and never read inputs then.
        let (begins, lifecycle) = state.withLock { state -> (Bool, (observer: any OperationLifecycle, index: Int)?) in
            // Our own record, not `isCancelled`: a cancel sets it under this lock before telling Foundation.
            guard state.phase == .ready, state.cancellationReason == nil else { return (false, nil) }
            state.phase = .executing
            return (true, state.lifecycle)
        }
        guard begins else {
            if !state.withLock({ $0.phase.hasEnded }) { finish(.cancelled) }
            return
        }
        willChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isExecuting")
        // The runner may have been cancelled after this operation was queued but before our own `cancel()`
        // reached it (another operation's cancellation can free the slot first): it says whether to go on.
        if let (observer, index) = lifecycle, !observer.operationDidStart(self, index: index) {
            cancel(reason: .runCancelled)
            finish(.cancelled)
            return
        }
        if let restoring = state.withLock({ $0.restoring }), let outcome = restoring() {
            state.withLock { $0.wasRestored = true }
            return finish(outcome)
        }
        execute()
    }

    /// Makes the operation give back a stored output instead of executing: the node's provider protocols then
    /// serve the restored value as they serve a computed one. Called once, before the operation is queued.
    /// - Parameter read: The stored output, or `nil` to execute instead.
    func restore(with read: @escaping @Sendable () -> Outcome?) {
        state.withLock { $0.restoring = read }
    }

    /// Whether the operation gave back a stored output (``restore(with:)``) rather than executing.
    var wasRestored: Bool { state.withLock { $0.wasRestored } }

    /// Connects the operation to the runner; called once, before the operation is queued.
    func attach(_ observer: any OperationLifecycle, index: Int) {
        state.withLock { $0.lifecycle = (observer, index) }
    }
}

extension FlowOperation.Outcome {
    /// The node status this outcome gives: `succeeded`, `failed`, `cancelled` or `skipped`.
    public var status: NodeStatus {
        switch self {
        case .success: .succeeded
        case .failure: .failed
        case .cancelled: .cancelled
        case .skipped: .skipped
        }
    }
}

/// The runner's view of an operation's life.
protocol OperationLifecycle: AnyObject, Sendable {
    /// Returns whether the operation may execute.
    func operationDidStart(_ operation: FlowOperation, index: Int) -> Bool
    /// The operation is done but Foundation does not know yet (`isFinished` is still false, so its queue slot
    /// is still taken): record the result, free the lane and launch what it unblocks.
    func operationWillFinish(_ operation: FlowOperation, index: Int)
    /// Foundation knows the operation finished (its queue has let go of it).
    func operationDidFinish()
}
