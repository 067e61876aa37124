import Foundation
import OrderedCollections
import Synchronization

/// Control of a run from the app that embeds it, as an app controls its own `OperationQueue`s: suspend and
/// resume queues, cancel one item or one node, start some items first.
///
/// Every method is safe to call from any thread at any moment — before ``run()``, while it runs, while it
/// finishes. Calls made before the run starts take effect when it starts; calls on a run that is over (every
/// node final, or the whole run cancelled) change nothing. A name or an item the plan does not have throws
/// ``RunControlError`` and changes nothing.
extension Runner {
    /// The cause recorded for nodes cancelled with ``cancel(item:cause:)`` or ``cancel(node:cause:)`` when
    /// the app gives none.
    public static let defaultCancellationCause = "cancelled by the embedding app"

    /// Suspends a queue: nothing new starts on it until ``resume(queue:)``; nodes already running finish.
    ///
    /// The runner stops handing it nodes, and the `OperationQueue` itself is suspended, so the few operations
    /// already handed over wait too. A node's `timeout` counts from its start, so waiting in a suspended queue
    /// never times a node out. A run whose remaining nodes all wait on suspended queues waits for a resume (or
    /// ``cancel()``, which also releases suspended queues).
    /// - Throws: ``RunControlError`` when the workflow declares no such queue.
    public func suspend(queue name: String) throws {
        setSuspended(true, queues: [try queueIndex(name)])
    }

    /// Resumes a suspended queue: it admits ready nodes best first — prioritised items
    /// (``prioritize(items:)``), then task `priority`, then downstream nodes, then item order — and starts
    /// them after the few operations it already held (at most twice its `maxConcurrent`), except that
    /// prioritised nodes go ahead of those too.
    /// - Throws: ``RunControlError`` when the workflow declares no such queue.
    public func resume(queue name: String) throws {
        setSuspended(false, queues: [try queueIndex(name)])
    }

    /// Suspends every queue of the workflow (see ``suspend(queue:)``).
    public func suspendAll() {
        setSuspended(true, queues: Array(plan.workflow.queues.keys.indices))
    }

    /// Resumes every queue of the workflow (see ``resume(queue:)``).
    public func resumeAll() {
        setSuspended(false, queues: Array(plan.workflow.queues.keys.indices))
    }

    /// Cancels every node of one `forEach` item — `fetch[3]`, `decode[3]`, … — that has not ended.
    ///
    /// Nodes not started never start; running ones are cancelled (their operation sees `isCancelled`) and
    /// settle when they stop, as do the few already handed to a queue that is suspended — when it resumes.
    /// Each ends `cancelled` with `cause`, the code ``NodeFailure/Code/cancelled``; a cancelled node does not
    /// fail the run (``RunReport/exitCode``). Dependents outside the item are skipped, except a `gather`: it
    /// runs over the items that remain, and the cancelled item is missing from its inputs as if it had never
    /// been listed. Other items go on untouched.
    /// - Parameters:
    ///   - item: The item's position in its `forEach` list (the `3` of `fetch[3]`).
    ///   - cause: What the report says about these nodes.
    /// - Throws: ``RunControlError`` when no node of the plan has that item.
    public func cancel(item: Int, cause: String = Runner.defaultCancellationCause) throws {
        withdraw(try nodes(ofItems: [item])[0], cause: cause)
    }

    /// Cancels one node, as ``cancel(item:cause:)`` does for each node of an item: its dependents are
    /// skipped, except a `gather`, which runs without that input.
    /// - Parameters:
    ///   - id: The node id, e.g. `decode[3]`, or a task id when the task is not expanded.
    ///   - cause: What the report says about the node.
    /// - Throws: ``RunControlError`` when the plan has no such node.
    public func cancel(node id: String, cause: String = Runner.defaultCancellationCause) throws {
        guard let index = plan.nodes.firstIndex(where: { $0.id == id }) else {
            throw RunControlError.unknownNode(
                id, suggestion: Suggestion.closest(to: id, in: plan.nodes.lazy.map(\.id)))
        }
        withdraw([index], cause: cause)
    }

    /// Starts the pending nodes of these items before any other node of their queues, in the order given;
    /// the items of a later call go ahead of those of earlier ones.
    ///
    /// The runner hands these nodes to their queues first, with `queuePriority` `.veryHigh`, so they also go
    /// ahead of the few operations a queue already holds but has not started (at most twice its
    /// `maxConcurrent`). Nodes of these items that are not ready yet keep the priority until they run;
    /// nodes already running are not affected.
    /// - Parameter items: Positions in the `forEach` lists, most urgent first.
    /// - Throws: ``RunControlError`` when no node of the plan has one of the items; then nothing changes.
    public func prioritize(items: some Sequence<Int>) throws {
        let nodesOfItems = try nodes(ofItems: Array(items))
        _ = state.withLock { $0.prioritize(nodesOfItems) }
    }

    // MARK: Carrying out control calls

    /// Changes the state's and Foundation's suspension together, under the lock, so that racing calls leave
    /// both as the last one said (and ``cancel()``, which releases every queue under the same lock, is final).
    private func setSuspended(_ isSuspended: Bool, queues indexes: [Int]) {
        enter()
        let effects = state.withLock { state -> RunState.Effects? in
            guard let effects = state.setSuspended(isSuspended, queues: indexes) else { return nil }
            // Setting the flag only schedules work on Dispatch queues: nothing re-enters the runner here.
            for queue in indexes { queues.queues[queue].isSuspended = isSuspended }
            return effects
        }
        if let effects { apply(effects) }
        leave()
    }

    private func withdraw(_ indexes: [Int], cause: String) {
        enter()
        let (live, effects) = state.withLock { $0.withdraw(indexes, cause: cause) }
        // Outside the lock: cancelling may finish an operation synchronously, which re-enters the runner.
        for operation in live { operation.cancel(reason: .nodeCancelled(cause)) }
        apply(effects)
        leave()
    }

    /// Lets every suspended `OperationQueue` go, so the operations a cancelled run leaves in them can end.
    func resumeOperationQueues() {
        for queue in queues.queues where queue.isSuspended { queue.isSuspended = false }
    }

    private func queueIndex(_ name: String) throws -> Int {
        guard let index = plan.workflow.queues.index(forKey: name) else {
            throw RunControlError.unknownQueue(
                name, suggestion: Suggestion.closest(to: name, in: plan.workflow.queues.keys))
        }
        return index
    }

    /// The nodes of each item, in one pass over the plan (a run may have a million nodes); an item given
    /// twice counts once, where it first appears.
    private func nodes(ofItems items: [Int]) throws -> [[Int]] {
        var position: [Int: Int] = [:]
        var unique: [Int] = []
        for item in items where position[item] == nil {
            position[item] = unique.count
            unique.append(item)
        }
        var nodes = [[Int]](repeating: [], count: unique.count)
        for index in plan.nodes.indices {
            if let item = plan.nodes[index].itemIndex, let slot = position[item] { nodes[slot].append(index) }
        }
        if let missing = nodes.firstIndex(where: \.isEmpty) {
            let count = plan.nodes.lazy.compactMap(\.itemIndex).max().map { $0 + 1 } ?? 0
            throw RunControlError.unknownItem(unique[missing], itemCount: count)
        }
        return nodes
    }
}

/// A control call on a ``Runner`` named something its plan does not have.
public enum RunControlError: Error, Equatable, CustomStringConvertible {
    /// The workflow declares no queue of that name.
    case unknownQueue(String, suggestion: String?)
    /// No node of the plan has that `forEach` item; `itemCount` is how many items the longest list has.
    case unknownItem(Int, itemCount: Int)
    /// The plan has no node of that id.
    case unknownNode(String, suggestion: String?)

    /// What was asked for that the plan lacks, with the closest name it has.
    public var description: String {
        switch self {
        case .unknownQueue(let name, let suggestion):
            "the workflow has no queue '\(name)'" + Self.hint(suggestion)
        case .unknownItem(let item, 0):
            "no task of the workflow has a forEach list, so there is no item \(item)"
        case .unknownItem(let item, let count):
            "no node has item \(item): items are numbered 0 to \(count - 1)"
        case .unknownNode(let id, let suggestion):
            "the plan has no node '\(id)'" + Self.hint(suggestion)
        }
    }

    private static func hint(_ suggestion: String?) -> String {
        suggestion.map { " (did you mean '\($0)'?)" } ?? ""
    }
}
