import HeapModule
import OrderedCollections

/// The runner's bookkeeping, kept under one lock: each node's status, counters of unfinished dependencies
/// and consumers, per-queue ready heaps, live operations, lanes. Methods return the side effects to carry
/// out *after* the lock is released (creating, cancelling and releasing operations may re-enter the runner).
///
/// Admission control: a queue holds at most ``admissionFactor`` × its limit operations at a time; other
/// ready nodes wait in a heap ordered by the app's prioritisation (`prioritize`), then priority, then depth
/// (downstream first), then item order; nothing is admitted to a queue the app suspended. So an
/// item's pipeline drains before new items start — outputs are consumed and released promptly and memory
/// stays flat for any number of items — and corelibs' queue, which rescans its pending operations on every
/// completion, only ever holds a handful.
///
/// Queues alone do not bound memory when a pipeline crosses queues: a fast producer on its own queue (`fetch`
/// on `io`) would run ahead of a slow consumer (`decode` on `cpu`) and every output would wait for it. So
/// sources — nodes without dependencies that others consume — wait in heaps of their own, admitted only while
/// the backlog of other ready nodes is below the sum of the admission limits (or nothing else is in flight).
/// Other nodes are never held back, so the backlog always drains and sources always resume.
struct RunState: Sendable {
    /// What every node needs while the run goes on, kept small (a million-node run holds a million of them):
    /// what only some nodes have — a failure, a timer, the spans of earlier attempts — lives in side tables.
    struct NodeRecord: Sendable {
        var status = NodeStatus.pending
        /// Handed to an `OperationQueue` (as opposed to waiting in the ready heap).
        var admitted = false
        var attemptEnded = false
        /// Restored from the store rather than run: it ends `cached` (see ``RunOptions/restoredNodes``).
        var restored = false
        var pendingDependencies: Int32
        var pendingConsumers: Int32
        var lane: Int32 = 0
        /// The attempt the last span belongs to.
        var spanAttempt: Int32 = 0
        var attempts = 0
        var operation: FlowOperation?
        /// The last attempt's start and end, in seconds from the start of the run (`end` is NaN until it ends).
        var attemptStart = 0.0
        var attemptEnd = Double.nan
    }

    /// A node cleared to run: its attempt number, its dependencies' operations, and whether the app
    /// prioritised it.
    struct Admission {
        var index: Int
        var attempt: Int
        var dependencies: SmallList<FlowOperation>
        var prioritized = false
    }

    /// What the runner must do once the lock is released.
    struct Effects {
        var admitted = SmallList<Admission>()
        var released = SmallList<FlowOperation>()
        var events: [RunEvent] = []
        var retry: (index: Int, delay: Duration)?
        var cancelTimer: (@Sendable () -> Void)?
        var cancelRun = false
        var finished = false
        /// Nodes skipped because a node upstream skipped itself (``FlowOperation/Outcome/skipped(_:)``).
        var skippedBelow = SmallList<Int>()
    }

    /// A ready node in its queue's heap; the greatest runs first: prioritised by the app, then by its task's
    /// priority, then downstream first, then in item order.
    struct ReadyNode: Comparable {
        var boost: Int
        var priority: Int
        var depth: Int
        var index: Int

        static func < (lhs: ReadyNode, rhs: ReadyNode) -> Bool {
            (lhs.boost, lhs.priority, lhs.depth, -lhs.index) < (rhs.boost, rhs.priority, rhs.depth, -rhs.index)
        }
    }

    static let admissionFactor = 2

    let plan: Plan
    let graph: NodeGraph
    /// Each task's `runIf`, by task index.
    let conditions: [RunCondition]
    private let queueNames: [String]
    private let admissionLimit: [Int]
    private let recordsEvents: Bool
    /// Nodes whose events are not recorded and that ``counts`` leaves out (``RunOptions/quietNodes``).
    private let quietNodes: Set<Int>
    var nodes: [NodeRecord]
    /// Why nodes failed, were skipped or cancelled, by node index.
    var failures: [Int: NodeFailure] = [:]
    /// The nodes that made partial results: they ran without some of their inputs (`runIf: always` after a
    /// failure), or read a result that was partial.
    var partialResults: Set<Int> = []
    /// The warnings of nodes whose last attempt recorded some (see ``FlowOperation/warn(_:)``), by node index.
    private(set) var warnings: [Int: [String]] = [:]
    /// The spans of attempts before the last one, for retried nodes.
    private var earlierSpans: [Int: [RunReport.Span]] = [:]
    /// The files nodes wrote, when the run collects previews (see ``Artifact``).
    private var artifacts: [Int: Artifact] = [:]
    /// The cancel of each running node's timeout.
    private var timers: [Int: @Sendable () -> Void] = [:]
    /// The cause the embedding app gave for each node it cancelled (see `withdraw`).
    var withdrawals: [Int: String] = [:]
    /// The rank of each node the embedding app prioritised (see `prioritize`); higher goes first.
    var boosts: [Int: Int] = [:]
    /// Nodes per (queue, status), for the progress line: index `queue * statusCount + status`.
    private(set) var counts: [Int]
    /// Nodes per (task, status), for a log's progress lines: index `task * statusCount + status`.
    private(set) var taskCounts: [Int]
    var ready: [Heap<ReadyNode>]
    /// Ready sources (no dependencies, some consumers), per queue; held back while `backlog` is full.
    var readySources: [Heap<ReadyNode>]
    /// How many entries the `ready` heaps hold.
    var backlog = 0
    private let backlogLimit: Int
    private var inFlight: [Int]
    private var lanes: [[Bool]]
    var resolved = 0
    private var previewsKept = 0
    private(set) var cancelled = false
    private(set) var interrupted = false
    /// Whether `start` has run: before it, control calls only record what they ask for.
    private(set) var started = false
    /// The up-to-date nodes whose written files the store put back before the run: they end `restored`.
    private var filesRestored: Set<Int> = []
    /// Where the store put them back from, for their cause in the report.
    private var restoredFrom = ""
    /// Per queue: whether the embedding app suspended it (nothing is admitted to it).
    var suspended: [Bool]
    /// The highest rank in `boosts` given so far.
    var boostCeiling = 0
    private static let statuses = NodeStatus.allCases

    init(plan: Plan, queueLimits: [Int], recordsEvents: Bool, quietNodes: Set<Int> = []) {
        self.plan = plan
        self.quietNodes = quietNodes
        let graph = plan.graph
        self.graph = graph
        self.recordsEvents = recordsEvents
        conditions = plan.workflow.tasks.map(\.runIf)
        queueNames = Array(plan.workflow.queues.keys)
        admissionLimit = queueLimits.map { max($0, 1) * Self.admissionFactor }
        nodes = (0..<graph.count).map {
            NodeRecord(
                pendingDependencies: Int32(graph.dependencyCount(of: $0)),
                pendingConsumers: Int32(graph.dependentCount(of: $0)))
        }
        counts = [Int](repeating: 0, count: queueNames.count * Self.statuses.count)
        for (index, queue) in graph.queue.enumerated() where !quietNodes.contains(index) {
            counts[Int(queue) * Self.statuses.count] += 1  // all pending
        }
        taskCounts = [Int](repeating: 0, count: plan.workflow.tasks.count * Self.statuses.count)
        for (index, node) in plan.nodes.enumerated() where !quietNodes.contains(index) {
            taskCounts[node.taskIndex * Self.statuses.count] += 1  // all pending
        }
        ready = queueNames.map { _ in Heap() }
        readySources = queueNames.map { _ in Heap() }
        backlogLimit = admissionLimit.reduce(0, +)
        inFlight = [Int](repeating: 0, count: queueNames.count)
        lanes = queueLimits.map { [Bool](repeating: false, count: max($0, 1)) }
        suspended = [Bool](repeating: false, count: queueNames.count)
    }

    /// How a node that did not run ends: `restored` when the store put its file back, else `cached`.
    private func upToDateStatus(of index: Int) -> NodeStatus {
        !filesRestored.isEmpty && filesRestored.contains(index) ? .restored : .cached
    }

    /// Resolves the cached nodes, makes the nodes without pending dependencies ready and admits what the queues
    /// take.
    mutating func start(
        cached: [Int] = [], restored: [Int] = [], skipped: [Int: String] = [:], unneeded: [Int: String] = [:],
        filesRestored: Set<Int> = [], restoredFrom: String = ""
    ) -> Effects {
        var effects = Effects()
        started = true
        self.filesRestored = filesRestored
        self.restoredFrom = restoredFrom
        for index in restored { nodes[index].restored = true }
        for index in cached where nodes[index].status == .pending {
            setStatus(index, upToDateStatus(of: index))
            event(index, &effects)
            resolve(index, &effects)
            graph.forEachDependent(of: index) { nodes[$0].pendingDependencies -= 1 }
        }
        for (index, cause) in skipped.sorted(by: { $0.key < $1.key }) where nodes[index].status == .pending {
            skip(index, because: cause, &effects)
            endDownstream(of: index, because: "upstream \(plan.nodes[index].id) was skipped", &effects)
        }
        for (index, cause) in unneeded.sorted(by: { $0.key < $1.key }) where nodes[index].status == .pending {
            skipUnneeded(index, because: cause, &effects)
        }
        for index in nodes.indices where nodes[index].pendingDependencies == 0 && nodes[index].status == .pending {
            settle(index, &effects)
        }
        admit(&effects)
        effects.finished = resolved == nodes.count
        return effects
    }

    /// A retry's backoff ended: the node is ready again.
    mutating func retryDue(_ index: Int) -> Effects {
        var effects = Effects()
        guard nodes[index].status == .retrying, !cancelled else { return effects }
        makeReady(index, &effects)
        admit(&effects)
        return effects
    }

    /// Records a node's operation; returns why to cancel it when the run or the node was cancelled meanwhile.
    mutating func store(_ operation: FlowOperation, for index: Int) -> FlowOperation.CancellationReason? {
        nodes[index].operation = operation
        if cancelled { return .runCancelled }
        return withdrawal(of: index).map { .nodeCancelled($0) }
    }

    /// Marks a node running; `nil` when the run or the node was cancelled and it must not execute.
    mutating func didStart(_ index: Int, at time: Double) -> Int? {
        guard !cancelled, withdrawal(of: index) == nil else { return nil }
        setStatus(index, .running)
        let queue = Int(graph.queue[index])
        let lane = lanes[queue].firstIndex(of: false) ?? lanes[queue].count
        if lane == lanes[queue].count { lanes[queue].append(false) }
        lanes[queue][lane] = true
        if !nodes[index].attemptEnd.isNaN {
            earlierSpans[index, default: []].append(lastSpan(of: index))
            nodes[index].attemptEnd = .nan
        }
        nodes[index].lane = Int32(lane)
        nodes[index].spanAttempt = Int32(nodes[index].attempts)
        nodes[index].attemptStart = time
        nodes[index].attemptEnded = false
        return nodes[index].attempts
    }

    mutating func setTimer(_ cancel: @escaping @Sendable () -> Void, for index: Int) {
        timers[index] = cancel
    }

    /// Every attempt of a node, as placed on its queue.
    func spans(of index: Int) -> [RunReport.Span] {
        guard !nodes[index].attemptEnd.isNaN else { return earlierSpans[index] ?? [] }
        guard let earlier = earlierSpans[index] else { return [lastSpan(of: index)] }
        return earlier + [lastSpan(of: index)]
    }

    private func lastSpan(of index: Int) -> RunReport.Span {
        RunReport.Span(
            start: nodes[index].attemptStart, end: nodes[index].attemptEnd, lane: Int(nodes[index].lane),
            attempt: Int(nodes[index].spanAttempt))
    }

    /// Keeps the file a node's attempt wrote, for the report; its preview only while fewer than
    /// ``Artifact/maxPreviewsPerRun`` are kept.
    mutating func record(_ artifact: Artifact, for index: Int) {
        var artifact = artifact
        if artifact.preview != nil {
            if previewsKept < Artifact.maxPreviewsPerRun { previewsKept += 1 } else { artifact.preview = nil }
        }
        artifacts[index] = artifact
    }

    /// Marks a node of the restored ones as one that executed instead: it ends `succeeded`, not `cached`.
    mutating func executedInstead(_ index: Int) {
        nodes[index].restored = false
    }

    /// Closes a running attempt: frees its lane and records its span. Called before Foundation frees the
    /// queue slot, so lanes never outnumber slots.
    mutating func endAttempt(_ index: Int, at time: Double) {
        guard nodes[index].status == .running, !nodes[index].attemptEnded else { return }
        nodes[index].attemptEnded = true
        lanes[Int(graph.queue[index])][Int(nodes[index].lane)] = false
        nodes[index].attemptEnd = time
    }

    /// Records how a node's attempt ended; what to do about it goes into `effects` (filled in place: returning
    /// the struct copied it on every completion).
    mutating func finish(
        _ index: Int, result: FlowOperation.Outcome, retries: Int, failFast: Bool, retry policy: RetryPolicy,
        into effects: inout Effects
    ) {
        guard nodes[index].admitted else { return }  // never admitted: nothing to finish
        nodes[index].admitted = false
        effects.cancelTimer = timers.removeValue(forKey: index)
        inFlight[Int(graph.queue[index])] -= 1
        switch result {
        case .success:
            setStatus(index, nodes[index].restored ? upToDateStatus(of: index) : .succeeded)
            event(index, &effects)
            if nodes[index].pendingConsumers == 0, let operation = nodes[index].operation {
                effects.released.append(operation)
                nodes[index].operation = nil
            }
            graph.forEachDependent(of: index) { dependent in
                nodes[dependent].pendingDependencies -= 1
                if nodes[dependent].pendingDependencies == 0, nodes[dependent].status == .pending, !cancelled {
                    settle(dependent, &effects)
                }
            }
            resolve(index, &effects)
        case .failure where withdrawal(of: index) != nil, .cancelled where withdrawal(of: index) != nil:
            // However the attempt ended once the app cancelled the node, the app's cancellation decides.
            settleWithdrawn(index, &effects)
        case .failure(let failure) where failure.isTransient && nodes[index].attempts <= retries && !cancelled:
            nodes[index].operation = nil
            let delay = failure.retryAfter ?? policy.delay(afterAttempt: nodes[index].attempts)
            setStatus(index, .retrying)
            event(index, &effects, failure: failure, retryDelay: delay)
            effects.retry = (index, delay)
        case .failure(let failure):
            nodes[index].operation = nil
            failures[index] = failure
            setStatus(index, .failed)
            event(index, &effects, failure: failure)
            resolve(index, &effects)
            endDownstream(
                of: index, because: "upstream \(plan.nodes[index].id) failed: \(failure.message)", &effects)
            if failFast && !cancelled { effects.cancelRun = true }
        case .skipped(let cause):
            nodes[index].operation = nil
            skipUnneeded(index, because: cause, &effects)
        case .cancelled:
            nodes[index].operation = nil
            failures[index] = NodeFailure(.cancelled, cancellationMessage, node: plan.nodes[index].id)
            setStatus(index, .cancelled)
            event(index, &effects, failure: failures[index])
            resolve(index, &effects)
            endDownstream(of: index, because: "upstream \(plan.nodes[index].id) was cancelled", &effects)
        }
        admit(&effects)
        effects.finished = resolved == nodes.count
    }

    /// Marks the run cancelled: nodes not handed to a queue are cancelled now; the operations of admitted
    /// ones are returned for the caller to cancel outside the lock.
    mutating func cancelAll(interrupted: Bool) -> ([FlowOperation], Effects) {
        var effects = Effects()
        self.interrupted = self.interrupted || interrupted
        guard !cancelled else { return ([], effects) }
        cancelled = true
        var live: [FlowOperation] = []
        for index in nodes.indices where !nodes[index].status.isFinal {
            if nodes[index].admitted {
                // An admitted node whose operation is not stored yet is cancelled by `store`'s answer.
                if let operation = nodes[index].operation { live.append(operation) }
            } else {
                failures[index] = NodeFailure(.cancelled, cancellationMessage, node: plan.nodes[index].id)
                setStatus(index, .cancelled)
                event(index, &effects, failure: failures[index])
                resolve(index, &effects)
            }
        }
        for queue in ready.indices {
            ready[queue] = Heap()
            readySources[queue] = Heap()
        }
        backlog = 0
        effects.finished = resolved == nodes.count
        return (live, effects)
    }

    private var cancellationMessage: String {
        interrupted ? "cancelled: the run was interrupted" : "cancelled after a failure (fail-fast)"
    }

    mutating func makeReady(_ index: Int, _ effects: inout Effects) {
        setStatus(index, .queued)
        let node = readyNode(index)
        if graph.dependencyCount(of: index) == 0, graph.dependentCount(of: index) > 0 {
            readySources[Int(graph.queue[index])].insert(node)
        } else {
            ready[Int(graph.queue[index])].insert(node)
            backlog += 1
        }
        event(index, &effects)
    }

    /// Moves ready nodes into their queues while the queues have room.
    ///
    /// A queue is topped up only once it is down to half its admission limit (its concurrency limit), then
    /// filled: operations reach Foundation in batches, so its queue lock is taken — and contended by the
    /// finishing workers — half as often, while the queue still holds a full round of work.
    mutating func admit(_ effects: inout Effects) {
        guard !cancelled else { return }
        for queue in ready.indices where !suspended[queue] && inFlight[queue] * 2 <= admissionLimit[queue] {
            while inFlight[queue] < admissionLimit[queue], let next = popNext(queue) {
                let index = next.index
                guard nodes[index].status == .queued, !nodes[index].admitted else { continue }
                nodes[index].admitted = true
                nodes[index].attempts += 1
                inFlight[queue] += 1
                var dependencies = SmallList<FlowOperation>()
                graph.forEachDependency(of: index) {
                    if let operation = nodes[$0].operation { dependencies.append(operation) }
                }
                effects.admitted.append(
                    Admission(
                        index: index, attempt: nodes[index].attempts, dependencies: dependencies,
                        prioritized: boost(of: index) > 0))
            }
        }
    }

    /// The best ready node of a queue: a source only while the backlog has room (or nothing runs at all).
    private mutating func popNext(_ queue: Int) -> ReadyNode? {
        let sourcesAllowed = backlog < backlogLimit || inFlight.allSatisfy { $0 == 0 }
        if sourcesAllowed, let source = readySources[queue].max, ready[queue].max.map({ $0 < source }) ?? true {
            return readySources[queue].popMax()
        }
        guard let next = ready[queue].popMax() else { return nil }
        backlog -= 1
        return next
    }

    /// A node reached a final status: its dependencies have one consumer fewer, and an output nobody
    /// needs any more is released.
    mutating func resolve(_ index: Int, _ effects: inout Effects) {
        resolved += 1
        graph.forEachDependency(of: index) { dependency in
            nodes[dependency].pendingConsumers -= 1
            if nodes[dependency].pendingConsumers == 0, nodes[dependency].status.isDone,
                let operation = nodes[dependency].operation
            {
                effects.released.append(operation)
                nodes[dependency].operation = nil
            }
        }
    }

    mutating func setStatus(_ index: Int, _ status: NodeStatus) {
        if quietNodes.isEmpty || !quietNodes.contains(index) {
            let base = Int(graph.queue[index]) * Self.statuses.count
            counts[base + nodes[index].status.ordinal] -= 1
            counts[base + status.ordinal] += 1
            let taskBase = plan.nodes[index].taskIndex * Self.statuses.count
            taskCounts[taskBase + nodes[index].status.ordinal] -= 1
            taskCounts[taskBase + status.ordinal] += 1
        }
        nodes[index].status = status
    }

    func event(_ index: Int, _ effects: inout Effects, failure: NodeFailure? = nil, retryDelay: Duration? = nil) {
        guard recordsEvents, !quietNodes.contains(index) else { return }
        effects.events.append(
            RunEvent(
                nodeID: plan.nodes[index].id, queue: queueNames[Int(graph.queue[index])], status: nodes[index].status,
                attempt: nodes[index].attempts, failure: failure, retryDelay: retryDelay))
    }
}

extension RunState {
    /// A node's entry in the run's report.
    func reportNode(_ index: Int) -> RunReport.Node {
        // Field by field: copying a whole `PlannedNode` or `TaskSpec` costs a retain per field.
        let task = plan.nodes[index].taskIndex
        let spans = spans(of: index)
        let failure = failures[index]
        return RunReport.Node(
            id: plan.nodes[index].id, task: plan.workflow.tasks[task].id.value, item: plan.nodes[index].itemIndex,
            type: plan.workflow.tasks[task].type.value, queue: plan.workflow.tasks[task].queueName,
            status: nodes[index].status, attempts: nodes[index].attempts, code: failure?.code.description,
            cause: failure?.message ?? (nodes[index].status == .restored ? "restored from \(restoredFrom)" : nil),
            location: failure?.location?.description, continueOnError: plan.workflow.tasks[task].continueOnError,
            spans: spans,
            dependencies: plan.dependencies(of: index), artifact: artifacts[index],
            missingInputs: missingInputs(of: index), warnings: warnings[index])
    }

    /// Keeps the warnings an attempt recorded, for the report.
    mutating func recordWarnings(_ warnings: [String], of index: Int) {
        self.warnings[index] = warnings
    }
}
