import FlowBasics
import HeapModule

/// What an embedding app asks of a running run (see `Runner+Control.swift`): suspending queues, cancelling
/// some nodes, prioritising items. Like the rest of `RunState`, each method runs under the runner's lock and
/// returns the effects to carry out once it is released.
extension RunState {
    /// Whether the run is over — every node final, or the whole run cancelled: control calls change nothing
    /// then.
    var isOver: Bool { cancelled || resolved == nodes.count }

    /// Suspends or resumes queues. A suspended queue is admitted nothing; a resumed one admits its best ready
    /// nodes at once.
    /// - Returns: What to launch, or `nil` when the run is over and nothing changed.
    mutating func setSuspended(_ isSuspended: Bool, queues: [Int]) -> Effects? {
        guard !isOver else { return nil }
        for queue in queues { suspended[queue] = isSuspended }
        var effects = Effects()
        if started && !isSuspended { admit(&effects) }
        return effects
    }

    /// Cancels nodes for the embedding app, with its cause. A node not yet handed to a queue is cancelled
    /// now; the operations of admitted ones are returned for the caller to cancel outside the lock, and they
    /// settle when they end. Each cancelled node's dependents are skipped — unless they too are among
    /// `indexes` (then they are cancelled with the same cause) or they gather: a gather loses that input
    /// and runs over the items that remain.
    mutating func withdraw(_ indexes: [Int], cause: String) -> (live: [FlowOperation], effects: Effects) {
        var effects = Effects()
        guard !isOver else { return ([], effects) }
        // Mark them all first, so a dependent among them is cancelled rather than skipped.
        let chosen = indexes.filter { !nodes[$0].status.isFinal && withdrawal(of: $0) == nil }
        for index in chosen { withdrawals[index] = cause }
        var live: [FlowOperation] = []
        var leftHeaps = false
        for index in chosen where !nodes[index].status.isFinal {
            if nodes[index].admitted {
                // An admitted node whose operation is not stored yet is cancelled by `store`'s answer.
                if let operation = nodes[index].operation { live.append(operation) }
            } else {
                leftHeaps = leftHeaps || nodes[index].status == .queued
                settleWithdrawn(index, &effects)
            }
        }
        if leftHeaps { rebuildReadyHeaps() }
        if started { admit(&effects) }
        effects.finished = resolved == nodes.count
        return (live, effects)
    }

    /// Moves the pending nodes of items ahead of every other node in their queues: the first item given
    /// first, and the items of a later call ahead of those of earlier ones.
    /// - Parameter items: Each item's nodes, best first.
    /// - Returns: Whether anything changed (nothing does once the run is over).
    @discardableResult
    mutating func prioritize(_ items: [[Int]]) -> Bool {
        guard !isOver else { return false }
        for (rank, item) in items.enumerated() {
            for index in item { boosts[index] = boostCeiling + items.count - rank }
        }
        boostCeiling += items.count
        rebuildReadyHeaps()
        return true
    }

    /// The cause the app gave when it cancelled a node, if it did.
    func withdrawal(of index: Int) -> String? {
        withdrawals.isEmpty ? nil : withdrawals[index]  // the usual case, checked per node: no hashing
    }

    /// A node's rank among those the app prioritised; 0 when it did not.
    func boost(of index: Int) -> Int {
        boosts.isEmpty ? 0 : boosts[index] ?? 0
    }

    /// A node's entry in a ready heap, with its current boost.
    func readyNode(_ index: Int) -> ReadyNode {
        ReadyNode(
            boost: boost(of: index), priority: Int(graph.priority[index]), depth: Int(graph.depth[index]),
            index: index)
    }

    /// Records the end of a node the app cancelled, and what that means downstream.
    mutating func settleWithdrawn(_ index: Int, _ effects: inout Effects) {
        nodes[index].operation = nil
        failures[index] = NodeFailure(.cancelled, withdrawal(of: index) ?? "", node: plan.nodes[index].id)
        setStatus(index, .cancelled)
        event(index, &effects, failure: failures[index])
        resolve(index, &effects)
        let graph = self.graph
        GraphAlgorithms.visit(from: CollectionOfOne(index), successors: graph.forEachDependent) { dependent in
            if plan.workflow.tasks[plan.nodes[dependent].taskIndex].gather {
                releaseGatheredInput(of: dependent, &effects)
                return false
            }
            guard nodes[dependent].status == .pending else { return false }
            if let cause = withdrawal(of: dependent) {
                failures[dependent] = NodeFailure(.cancelled, cause, node: plan.nodes[dependent].id)
                setStatus(dependent, .cancelled)
            } else {
                failures[dependent] = NodeFailure(
                    .upstream, "upstream \(plan.nodes[index].id) was cancelled", node: plan.nodes[dependent].id)
                setStatus(dependent, .skipped)
            }
            event(dependent, &effects, failure: failures[dependent])
            resolve(dependent, &effects)
            return true
        }
    }

    /// A gather lost one input to a cancellation or a skip: it waits for one dependency fewer, as if that one had
    /// succeeded without an output.
    mutating func releaseGatheredInput(of gather: Int, _ effects: inout Effects) {
        nodes[gather].pendingDependencies -= 1
        if nodes[gather].pendingDependencies == 0, nodes[gather].status == .pending, !cancelled {
            makeReady(gather, &effects)
        }
    }

    /// Rebuilds every ready heap from the nodes still ready, with their current boosts, and recounts the
    /// backlog: after a prioritisation, or once cancelled nodes have left the heaps.
    private mutating func rebuildReadyHeaps() {
        backlog = 0
        for queue in ready.indices {
            ready[queue] = Heap(ready[queue].unordered.filter { isStillReady($0) }.map { readyNode($0.index) })
            readySources[queue] = Heap(
                readySources[queue].unordered.filter { isStillReady($0) }.map { readyNode($0.index) })
            backlog += ready[queue].count
        }
    }

    private func isStillReady(_ node: ReadyNode) -> Bool {
        nodes[node.index].status == .queued && !nodes[node.index].admitted
    }
}
