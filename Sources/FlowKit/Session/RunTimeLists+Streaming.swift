import Foundation

/// A list made at run time whose items start while its producer runs (``StreamedList``), and how the second phase
/// takes what they ran.
///
/// A list streams when the run has one list made at run time, read as lines (no `key:`), and every task over it
/// depends on nothing but other tasks over it: its items then need nothing the first phase has not made but their
/// own item. Every other list — and a shard, the lists step, a gather phase, `--target`, a store in a bucket,
/// `failFast` — is read once its producer has ended, as before.
extension RunTimeLists {
    /// The fan-out whose items start while its producer runs, if the run streams one.
    /// - Parameter producers: The node of each fan-out's producer, by the fan-out's task index.
    func streamingFanOut(_ producers: [Int: Int]) -> Int? {
        let workflow = plan.workflow
        guard producers.count == 1, let fanOut = producers.keys.first, options.part == .whole, bucket == nil,
            plan.targets.isEmpty, !(options.run.failFast ?? workflow.failFast),
            workflow.tasks[fanOut].forEach?.keyField == nil
        else { return nil }
        let over = workflow.tasksOverList(of: fanOut)
        let taskIndex = workflow.taskIndex()
        for task in over {
            for entry in workflow.tasks[task].dependsOn {
                guard let dependency = taskIndex[entry.value], over.contains(dependency) else { return nil }
            }
        }
        return fanOut
    }

    /// The tasks over `fanOut`'s list whose outputs a node after the items reads: those a gather depends on.
    func tasksReadAfterItems(fanOut: Int) -> Set<Int> {
        let workflow = plan.workflow
        let over = workflow.tasksOverList(of: fanOut)
        let taskIndex = workflow.taskIndex()
        var read = Set<Int>()
        for (index, task) in workflow.tasks.enumerated() where !over.contains(index) {
            for entry in task.dependsOn {
                if let dependency = taskIndex[entry.value], over.contains(dependency) { read.insert(dependency) }
            }
        }
        return read
    }

    /// The nodes of the second phase that end `skipped` because the list's producer did not give a whole list
    /// after some of its items started: the items' nodes that did not start, and the gathers over the list
    /// (but those with `runIf: always`), with the cause.
    static func skippedAfterIncompleteList(
        _ plan: Plan, fanOut: Int, started: StreamedList.Started, failure: String
    ) -> [Int: String] {
        let workflow = plan.workflow
        let task = workflow.tasks[fanOut]
        let cause =
            "the list of '\(task.id.value)' from '\(task.forEach?.producer?.value ?? "")' is not whole: \(failure)"
        let over = workflow.tasksOverList(of: fanOut)
        let taskIndex = workflow.taskIndex()
        var skipped: [Int: String] = [:]
        for (index, node) in plan.nodes.enumerated() {
            let nodeTask = workflow.tasks[node.taskIndex]
            if over.contains(node.taskIndex) {
                if started.records[node.id] == nil { skipped[index] = cause }
            } else if nodeTask.gather, nodeTask.runIf != .always,
                nodeTask.dependsOn.contains(where: { taskIndex[$0.value].map(over.contains) == true })
            {
                skipped[index] = cause
            }
        }
        return skipped
    }

    /// The plan of the nodes that already ran: the first phase's, and the items that started while their producer
    /// ran (with the list they were planned with).
    func alreadyRun(_ first: [Int], started: StreamedList.Started?, lists: [Int: [ForEachItem]])
        throws(SessionError) -> Plan
    {
        guard let started, !started.records.isEmpty else { return plan.restricted(to: first) }
        let firstIDs = Set(first.map { plan.nodes[$0].id })
        let whole = try replanned(with: lists)
        return whole.restricted(
            to: whole.nodes.indices.filter {
                firstIDs.contains(whole.nodes[$0].id) || started.records[whole.nodes[$0].id] != nil
            })
    }
}
