import OrderedCollections

/// The runner's bookkeeping, kept under one lock: each node's status, counters of unfinished dependencies
/// and consumers, live operations, lanes. Methods return the side effects to carry out *after* the lock
/// is released (launching, cancelling and releasing operations may re-enter the runner).
struct RunState: Sendable {
    struct NodeRecord: Sendable {
        var status = NodeStatus.pending
        var attempts = 0
        var pendingDependencies: Int
        var pendingConsumers: Int
        var operation: FlowOperation?
        var failure: NodeFailure?
        var spans: [RunReport.Span] = []
        var lane = 0
        var attemptStart = 0.0
        var cancelTimer: (@Sendable () -> Void)?
    }

    /// What the runner must do once the lock is released.
    struct Effects {
        var launch: [Int] = []
        var released: [FlowOperation] = []
        var events: [RunEvent] = []
        var retry: (index: Int, delay: Duration)?
        var cancelTimer: (@Sendable () -> Void)?
        var cancelRun = false
        var finished = false
    }

    private let plan: Plan
    private let queueOfNode: [Int]
    private let queueNames: [String]
    private(set) var nodes: [NodeRecord]
    /// Nodes per (queue, status), for the progress line: index `queue * statusCount + status`.
    private(set) var counts: [Int]
    private var lanes: [[Bool]]
    private var resolved = 0
    private(set) var cancelled = false
    private(set) var interrupted = false
    private static let statuses = NodeStatus.allCases

    private let recordsEvents: Bool

    init(plan: Plan, queueCount: Int, laneLimits: [Int], recordsEvents: Bool) {
        self.plan = plan
        self.recordsEvents = recordsEvents
        let names = Array(plan.workflow.queues.keys)
        queueNames = names
        let queueIndex = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($0.element, $0.offset) })
        let taskQueue = plan.workflow.tasks.map { queueIndex[$0.queueName] ?? 0 }
        queueOfNode = plan.nodes.map { taskQueue[$0.taskIndex] }
        nodes = plan.nodes.map {
            NodeRecord(pendingDependencies: $0.dependencies.count, pendingConsumers: $0.dependents.count)
        }
        counts = [Int](repeating: 0, count: queueCount * Self.statuses.count)
        for queue in queueOfNode { counts[queue * Self.statuses.count] += 1 }  // all pending
        lanes = laneLimits.map { [Bool](repeating: false, count: max($0, 1)) }
    }

    /// The nodes with no dependencies.
    func start() -> [Int] {
        nodes.indices.filter { nodes[$0].pendingDependencies == 0 }
    }

    /// Claims a node for a new attempt: the attempt number and the dependencies' live operations.
    mutating func beginAttempt(_ index: Int) -> (Int, [FlowOperation])? {
        guard !cancelled, nodes[index].status == .pending || nodes[index].status == .retrying else { return nil }
        nodes[index].attempts += 1
        setStatus(index, .queued)
        return (nodes[index].attempts, plan.nodes[index].dependencies.compactMap { nodes[$0].operation })
    }

    /// Records a queued operation; returns whether the run was cancelled meanwhile.
    mutating func store(_ operation: FlowOperation, for index: Int) -> Bool {
        nodes[index].operation = operation
        return cancelled
    }

    mutating func didStart(_ index: Int, at time: Double) -> Int {
        setStatus(index, .running)
        let queue = queueOfNode[index]
        let lane = lanes[queue].firstIndex(of: false) ?? lanes[queue].count
        if lane == lanes[queue].count { lanes[queue].append(false) }
        lanes[queue][lane] = true
        nodes[index].lane = lane
        nodes[index].attemptStart = time
        return nodes[index].attempts
    }

    mutating func setTimer(_ cancel: @escaping @Sendable () -> Void, for index: Int) {
        nodes[index].cancelTimer = cancel
    }

    mutating func finish(
        _ index: Int, result: AttemptResult, at time: Double, retries: Int, failFast: Bool, retry policy: RetryPolicy
    ) -> Effects {
        var effects = Effects()
        effects.cancelTimer = nodes[index].cancelTimer
        nodes[index].cancelTimer = nil
        let queue = queueOfNode[index]
        if nodes[index].status == .running {
            lanes[queue][nodes[index].lane] = false
            nodes[index].spans.append(RunReport.Span(
                start: nodes[index].attemptStart, end: time, lane: nodes[index].lane, attempt: nodes[index].attempts))
        }
        switch result {
        case .succeeded:
            setStatus(index, .succeeded)
            event(index, &effects)
            if nodes[index].pendingConsumers == 0, let operation = nodes[index].operation {
                effects.released.append(operation)
                nodes[index].operation = nil
            }
            for dependent in plan.nodes[index].dependents {
                nodes[dependent].pendingDependencies -= 1
                if nodes[dependent].pendingDependencies == 0, nodes[dependent].status == .pending, !cancelled {
                    effects.launch.append(dependent)
                }
            }
            resolve(index, &effects)
        case .failed(let failure) where nodes[index].attempts <= retries && !cancelled:
            nodes[index].operation = nil
            let delay = policy.delay(afterAttempt: nodes[index].attempts)
            setStatus(index, .retrying)
            event(index, &effects, failure: failure, retryDelay: delay)
            effects.retry = (index, delay)
        case .failed(let failure):
            nodes[index].operation = nil
            nodes[index].failure = failure
            setStatus(index, .failed)
            event(index, &effects, failure: failure)
            resolve(index, &effects)
            skipDownstream(of: index, because: "upstream \(plan.nodes[index].id) failed: \(failure.message)", &effects)
            if failFast && !cancelled { effects.cancelRun = true }
        case .cancelled:
            nodes[index].operation = nil
            nodes[index].failure = NodeFailure(.cancelled, cancellationMessage, node: plan.nodes[index].id)
            setStatus(index, .cancelled)
            event(index, &effects, failure: nodes[index].failure)
            resolve(index, &effects)
            skipDownstream(of: index, because: "upstream \(plan.nodes[index].id) was cancelled", &effects)
        }
        effects.finished = resolved == nodes.count
        return effects
    }

    /// Marks the run cancelled: nodes not yet handed to a queue are cancelled now; the live operations
    /// are returned for the caller to cancel outside the lock.
    mutating func cancelAll(interrupted: Bool) -> ([FlowOperation], Effects) {
        var effects = Effects()
        self.interrupted = self.interrupted || interrupted
        guard !cancelled else { return ([], effects) }
        cancelled = true
        var live: [FlowOperation] = []
        for index in nodes.indices {
            switch nodes[index].status {
            case .pending, .retrying:
                nodes[index].failure = NodeFailure(.cancelled, cancellationMessage, node: plan.nodes[index].id)
                setStatus(index, .cancelled)
                event(index, &effects, failure: nodes[index].failure)
                resolve(index, &effects)
            case .queued, .running:
                if let operation = nodes[index].operation { live.append(operation) }
            case .succeeded, .failed, .skipped, .cancelled:
                break
            }
        }
        effects.finished = resolved == nodes.count
        return (live, effects)
    }

    private var cancellationMessage: String {
        interrupted ? "cancelled: the run was interrupted" : "cancelled after a failure (fail-fast)"
    }

    /// A node reached a final status: its dependencies have one consumer fewer, and an output nobody
    /// needs any more is released.
    private mutating func resolve(_ index: Int, _ effects: inout Effects) {
        resolved += 1
        for dependency in plan.nodes[index].dependencies {
            nodes[dependency].pendingConsumers -= 1
            if nodes[dependency].pendingConsumers == 0, nodes[dependency].status == .succeeded,
                let operation = nodes[dependency].operation
            {
                effects.released.append(operation)
                nodes[dependency].operation = nil
            }
        }
    }

    /// Skips every node downstream that has not run, naming the root cause.
    private mutating func skipDownstream(of root: Int, because cause: String, _ effects: inout Effects) {
        var stack = plan.nodes[root].dependents
        while let index = stack.popLast() {
            guard nodes[index].status == .pending else { continue }
            nodes[index].failure = NodeFailure(.upstream, cause, node: plan.nodes[index].id)
            setStatus(index, .skipped)
            event(index, &effects, failure: nodes[index].failure)
            resolve(index, &effects)
            stack.append(contentsOf: plan.nodes[index].dependents)
        }
    }

    private mutating func setStatus(_ index: Int, _ status: NodeStatus) {
        let base = queueOfNode[index] * Self.statuses.count
        counts[base + Self.statuses.firstIndex(of: nodes[index].status)!] -= 1
        counts[base + Self.statuses.firstIndex(of: status)!] += 1
        nodes[index].status = status
    }

    private func event(_ index: Int, _ effects: inout Effects, failure: NodeFailure? = nil, retryDelay: Duration? = nil) {
        guard recordsEvents else { return }
        effects.events.append(RunEvent(
            nodeID: plan.nodes[index].id, queue: queueNames[queueOfNode[index]], status: nodes[index].status,
            attempt: nodes[index].attempts, failure: failure, retryDelay: retryDelay))
    }
}
