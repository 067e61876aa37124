import FlowBasics
import Foundation

/// The item chains of a list that streams whose items arrived together (``StreamedList``), run as a plan of their
/// own beside the run of the list's producer: planned with every item known so far, so each node is the one the
/// whole list's plan has (its id, parameters and key, and the faults decided before it runs), decided against the
/// store the producer's run holds open, and run on the same queues.
final class ItemBatch: Sendable {
    /// The ids of the batch's nodes, in the order of its report.
    let nodeIDs: [String]
    private let run: PreparedRun
    private let finished = LockedBox<(report: RunReport, outputs: [Int: any Sendable])?>(nil)
    private let ended = DispatchGroup()

    /// Plans the items of `list` from `first` on, and makes the run that will decide and run them; `nil` when
    /// none of them is new (every new item's key was an earlier item's: those fail with the whole list).
    /// - Parameters:
    ///   - list: Every item the producer printed so far, as the whole list reads them.
    ///   - fanOut: The task index of the list's `forEach` task.
    ///   - lists: The run the list belongs to.
    ///   - shared: What the producer's run shares with its batches: its store, queues and ledger of written files.
    /// - Throws: ``SessionError`` when the items cannot be planned (the whole list then fails the same way).
    init?(
        _ list: RunTimeItems.List, from first: Int, fanOut: Int, lists: RunTimeLists, shared: StreamedList.Shared
    ) throws(SessionError) {
        let plan = try lists.replanned(with: [fanOut: list.items])
        let over = plan.workflow.tasksOverList(of: fanOut)
        let nodes = plan.nodes.indices.filter { index in
            let node = plan.nodes[index]
            guard over.contains(node.taskIndex), let item = node.itemIndex else { return false }
            return item >= first && list.duplicates[item] == nil
        }
        guard !nodes.isEmpty else { return nil }
        let position = Dictionary(uniqueKeysWithValues: nodes.enumerated().map { ($1, $0) })
        var earlier: [Int: Result<any Sendable, NodeFailure>] = [:]
        // Decided over every item so far: an earlier item keeps its file, as with the whole list.
        for (index, failure) in RunTimeItemFaults(plan: plan).failures(duplicates: [fanOut: list.duplicates]) {
            if let at = position[index] { earlier[at] = .failure(failure) }
        }
        let batch = plan.restricted(to: nodes)
        let part = SessionPart(plan: batch, journal: nil) { $0 }
        let opened = shared.store.map { owned in
            let store = owned.sharedForAnotherPlan()
            return (store, SessionStore(options: lists.options).decide(part, in: store))
        }
        var options = lists.options.run
        options.sharedQueues = shared.queues
        options.sharedOutputs = shared.outputs
        options.sharedOrigin = shared.origin
        let readTasks = lists.tasksReadAfterItems(fanOut: fanOut)
        // The outputs a node after the batch reads are kept.
        let readLater = Set(batch.nodes.indices.filter { readTasks.contains(batch.nodes[$0].taskIndex) })
        nodeIDs = batch.nodes.map(\.id)
        run = PreparedRun(
            part: part, opened: opened, options: options, capturing: readLater, earlier: earlier, closesStore: false)
    }

    /// Starts the batch, as a runner of the session `options` are of (its cancellation reaches it). It holds no
    /// thread while its nodes run, so a producer that prints its lines slowly, each a batch, does not hold a
    /// thread per line.
    func start(in options: SessionOptions) {
        options.starting(run.runner)
        ended.enter()
        Task { [self] in
            // Without a bucket, finishing a run throws nothing.
            if let report = try? await run.run() { finished.withLock { $0 = (report, run.capturedOutputs) } }
            ended.leave()
        }
    }

    /// Waits for the batch to end, and gives its report and the outputs that nodes after it read, by position.
    func wait() -> (report: RunReport, outputs: [Int: any Sendable])? {
        ended.wait()
        return finished.withLock { $0 }
    }
}
