import Foundation

/// The decisions for nodes of a ``StatelessTask`` (`noop`), of which the store keeps nothing: they are never
/// journaled, keyed only where a kept node's key needs theirs, and follow what they wait for.
extension UpToDate {
    /// Decides every stateless node, in plan order, after the others: `--force`, `--rerun`, `cache: false` and a
    /// cold store run it; a reader that runs needs it; else it runs when something it waits for changed (its key,
    /// had it one, would differ), and is up to date otherwise.
    /// - Parameters:
    ///   - causes: The kept nodes' decisions (``KeptDecisions/causes``); the stateless nodes' are filled in.
    ///   - records: The records those decisions used.
    ///   - cold: Whether the store holds no result of this workflow.
    static func decideStateless(
        _ plan: Plan, tasks: [TaskFacts], settings: Settings, rerunBy: [String?], keys: [NodeKey?],
        records: Records, cold: Bool, causes: inout [RunCause?]
    ) {
        for index in plan.nodes.indices where tasks[plan.nodes[index].taskIndex].keepsNothing {
            let task = tasks[plan.nodes[index].taskIndex]
            causes[index] =
                if settings.force {
                    .forced
                } else if !rerunBy.isEmpty, let rerunTask = rerunBy[index] {
                    .rerun(task: rerunTask)
                } else if task.cache == .disabled {
                    .notCached("cache: false")
                } else if cold {
                    .noRecord
                } else if let reader = runningReader(of: index, in: plan, tasks: tasks, causes: causes) {
                    .neededBy(node: reader)
                } else {
                    changedDependency(of: index, in: plan, tasks: tasks, keys: keys, records: records, causes: causes)
                        .map { .waitsFor(node: $0) }
                }
        }
    }

    /// The first dependent of a node that reads its output and runs, by id.
    private static func runningReader(of index: Int, in plan: Plan, tasks: [TaskFacts], causes: [RunCause?])
        -> String?
    {
        var reader: Int?
        plan.graph.forEachDependent(of: index) { dependent in
            if reader == nil, causes[dependent] != nil, tasks[plan.nodes[dependent].taskIndex].readsInput {
                reader = dependent
            }
        }
        return reader.map { plan.nodes[$0].id }
    }

    /// The first dependency of a stateless node whose key is not the one recorded (or, stateless too, that runs
    /// for such a change), by id: what the node's own key, had it one, would follow. A dependency that runs
    /// with its recorded key (its output is missing, it is a `command`) leaves the node up to date.
    private static func changedDependency(
        of index: Int, in plan: Plan, tasks: [TaskFacts], keys: [NodeKey?], records: Records,
        causes: [RunCause?]
    ) -> String? {
        var changed: Int?
        plan.graph.forEachDependency(of: index) { dependency in
            guard changed == nil else { return }
            let isChanged =
                if tasks[plan.nodes[dependency].taskIndex].keepsNothing {
                    causes[dependency]?.isWaitingForAChange == true
                } else if let record = records[dependency] {
                    record.key != keys[dependency]
                } else {
                    causes[dependency] != nil  // new, or else up to date without its record (its readers are)
                }
            if isChanged { changed = dependency }
        }
        return changed.map { plan.nodes[$0].id }
    }
}
