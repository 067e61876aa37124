import Foundation
import Logging

/// How to run a plan.
public struct RunOptions: Sendable {
    /// Cancel everything at the first failure; `nil` uses the workflow's `failFast`.
    public var failFast: Bool?
    /// The limit of the `default` queue; `nil` for the workflow's setting or the number of cores.
    public var maxConcurrentDefault: Int?
    /// The time source.
    public var clock: any RunClock
    /// The backoff between retries.
    public var retry: RetryPolicy
    /// Whether operations may use equivalent-output shortcuts (see ``NodeContext/optimize``).
    public var optimize: Bool
    /// Whether nodes that write files record them as ``Artifact``s with a small preview image, for reports that
    /// show what came out (`--html`); the run report then lists them on their nodes.
    public var previews: Bool
    /// Where nodes log.
    public var logger: Logger
    /// Called on every node event, from the thread where it happened. Keep it cheap.
    public var observer: (@Sendable (RunEvent) -> Void)?
    /// The nodes decided before the run to be up to date, by index in ``Plan/nodes``: they end `cached` without
    /// running, and their dependents do not wait for them. A node that runs must not read an output from one.
    var cachedNodes: [Int] = []
    /// The nodes decided before the run to be up to date whose outputs nodes that run read, by index in
    /// ``Plan/nodes``: each is restored by ``restore`` instead of running — in its queue, when its turn comes,
    /// so an output is read back only shortly before its readers run and released after them — and ends
    /// `cached`.
    var restoredNodes: [Int] = []
    /// The nodes among ``cachedNodes`` and ``restoredNodes`` whose files the store put back before the run
    /// (``WrittenFileRestore``), by index in ``Plan/nodes``: they end `restored`, not `cached`.
    var filesRestored: Set<Int> = []
    /// Where ``filesRestored`` came from (``WrittenFileArchive/origin``), for their cause in the report.
    var restoredFrom = ""
    /// Nodes whose events ``observer`` does not get and ``Runner/progress()`` does not count, by index in
    /// ``Plan/nodes``: an earlier phase of the run ran them and told of them already, and this run only takes their
    /// outcomes.
    var quietNodes: Set<Int> = []
    /// The nodes decided before the run not to run, with the cause (a gather over a list made at run time that
    /// came out empty): they end `skipped`, and so do their dependents that run only after success.
    var skippedNodes: [Int: String] = [:]
    /// The nodes the store found skipped by their own task last run, for the same key, with the cause they gave
    /// (``FlowOperation/Outcome/skipped(_:)``): they end `skipped` again without running, as they would have; their
    /// dependents are skipped and a gather after them runs without them.
    var unneededNodes: [Int: String] = [:]
    /// Reads back the output of a node of ``restoredNodes`` (the store's blob), or says why it cannot, which
    /// fails the node.
    var restore: (@Sendable (_ index: Int) -> Result<any Sendable, NodeFailure>)?
    /// Asked of a node of ``restoredNodes`` when its turn comes, before ``restore``: whether it executes instead,
    /// because what it was decided from changed during the run (the output of a node upstream that runs every
    /// time). It then ends `succeeded`, as a node that runs.
    var runsInstead: (@Sendable (_ index: Int) -> Bool)?
    /// Called once a node has succeeded, with its index and operation, before its output can be released, from
    /// the thread where it finished (the store journals it here), and whether its result is whole: one that ran
    /// without some of its inputs (`runIf: always` after a failure), or read such a result, is partial. Keep it
    /// cheap.
    var nodeSucceeded: (@Sendable (_ index: Int, _ operation: FlowOperation, _ isWhole: Bool) -> Void)?
    /// Called once a node that executed has skipped itself (``FlowOperation/Outcome/skipped(_:)``), with its index
    /// and the cause, from the thread where it finished (the store journals it here).
    var nodeSkipped: (@Sendable (_ index: Int, _ cause: String) -> Void)?
    /// Called for each node skipped because a node upstream skipped itself, now or as the store recorded, with its
    /// index, outside the runner's lock (the store journals that a `write` among them wrote nothing).
    var nodeSkippedBelow: (@Sendable (_ index: Int) -> Void)?
    /// The nodes whose standard output is wanted while they run (the producers of lists that stream), by index in
    /// ``Plan/nodes``, each with what takes every chunk as it arrives, from the thread that read it.
    var outputChunks: [Int: @Sendable (Data) -> Void] = [:]
    /// The queues to run on, when runners share them (the item batches of a list that streams run beside the
    /// run of its producer, and every queue's limit holds across all of them); `nil` makes the runner its own.
    var sharedQueues: QueueSet?
    /// The ledger of the files written, when runners share one, so no runner's node replaces another's file.
    var sharedOutputs: OutputLedger?
    /// When the run started, when runners share its clock: their reports' spans are then on one time line.
    var sharedOrigin: RunOrigin?

    /// Creates options.
    public init(
        failFast: Bool? = nil, maxConcurrentDefault: Int? = nil, clock: any RunClock = SystemClock(),
        retry: RetryPolicy = RetryPolicy(), optimize: Bool = true, previews: Bool = false,
        logger: Logger = Logger(label: "flowrun"), observer: (@Sendable (RunEvent) -> Void)? = nil
    ) {
        self.failFast = failFast
        self.maxConcurrentDefault = maxConcurrentDefault
        self.clock = clock
        self.retry = retry
        self.optimize = optimize
        self.previews = previews
        self.logger = logger
        self.observer = observer
    }
}

/// The instant a run's report counts from: its date, and the same instant on the run's clock.
struct RunOrigin: Sendable {
    let date: Date
    let seconds: Double

    init(clock: any RunClock) {
        date = Date()
        seconds = clock.nowSeconds
    }
}

/// Where a node is in its life.
public enum NodeStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting for dependencies.
    case pending
    /// Handed to its queue, waiting for a slot.
    case queued
    /// Executing.
    case running
    /// Failed, waiting for its backoff before another attempt.
    case retrying
    /// Finished successfully.
    case succeeded
    /// Failed after all its attempts.
    case failed
    /// Not run because a node upstream failed, was cancelled or was skipped; or run, and found nothing to do
    /// (``FlowOperation/Outcome/skipped(_:)``).
    case skipped
    /// Not run, or stopped, because the run was cancelled, or the embedding app cancelled the node.
    case cancelled
    /// Not run because the store holds its result from an earlier run, found up to date by a ``RunSession``.
    case cached
    /// Not run: up to date, but its file had gone, and the store put back the one it recorded
    /// (``SessionOptions/restoresWrittenFiles``).
    case restored

    /// The position in `allCases`, for counters indexed by status.
    var ordinal: Int {
        switch self {
        case .pending: 0
        case .queued: 1
        case .running: 2
        case .retrying: 3
        case .succeeded: 4
        case .failed: 5
        case .skipped: 6
        case .cancelled: 7
        case .cached: 8
        case .restored: 9
        }
    }

    /// Whether the node will not change any more.
    public var isFinal: Bool {
        switch self {
        case .succeeded, .failed, .skipped, .cancelled, .cached, .restored: true
        case .pending, .queued, .running, .retrying: false
        }
    }
}

/// Something that happened to a node, for progress displays and logs.
public struct RunEvent: Sendable {
    /// The node.
    public var nodeID: String
    /// The node's queue.
    public var queue: String
    /// The node's new status.
    public var status: NodeStatus
    /// The attempt number (1-based) the event belongs to.
    public var attempt: Int
    /// Why it failed, was skipped or will be retried.
    public var failure: NodeFailure?
    /// For `.retrying`, the delay before the next attempt.
    public var retryDelay: Duration?
}
