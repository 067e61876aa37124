/// Where each node of a plan runs when the run is split into shards: in the shard of its item, in every shard
/// that needs it, or in the gather phase.
///
/// - A node of an expanded task (`fetch[i]`) runs in the shard whose block holds item `i` (see ``Shard``).
/// - A `gather` node and every node downstream of one needs the items of every shard: it runs in the gather phase,
///   after all shards.
/// - Any other node (a task without `forEach`, upstream of the items or beside them) runs in shard 1, and in every
///   other shard with an item that depends on it. A workflow without `forEach` is one shard: shard 1 runs it all.
package struct ShardPlan: Sendable {
    /// The whole plan.
    package let plan: Plan
    /// Whether each node, by index in ``Plan/nodes``, runs in the gather phase.
    package let isGathered: [Bool]
    /// How many nodes each task expands to, by task index.
    private let nodeCounts: [Int]

    /// Splits a plan.
    package init(plan: Plan) {
        self.plan = plan
        var gathered = [Bool](repeating: false, count: plan.nodes.count)
        var counts = [Int](repeating: 0, count: plan.workflow.tasks.count)
        for (index, node) in plan.nodes.enumerated() {
            counts[node.taskIndex] += 1
            var afterGather = false
            plan.graph.forEachDependency(of: index) { afterGather = afterGather || gathered[$0] }
            gathered[index] = plan.task(of: node).gather || afterGather
        }
        isGathered = gathered
        nodeCounts = counts
    }

    /// Whether any task has `forEach` items to split.
    package var hasItems: Bool { plan.nodes.contains { $0.itemIndex != nil } }

    /// The nodes shard `shard` runs, in plan order.
    package func nodes(in shard: Shard) -> [Int] {
        var selected = [Bool](repeating: false, count: plan.nodes.count)
        for (index, node) in plan.nodes.enumerated() where !isGathered[index] {
            if let item = node.itemIndex {
                selected[index] = shard.items(of: nodeCounts[node.taskIndex]).contains(item)
            } else {
                selected[index] = shard.index == 1
            }
        }
        // What a selected node needs runs in its shard too.
        let needed = GraphAlgorithms.reachable(
            from: plan.nodes.indices.filter { selected[$0] }, count: plan.nodes.count,
            successors: plan.graph.forEachDependency)
        return plan.nodes.indices.filter { needed[$0] }
    }

    /// The nodes of the gather phase, in plan order.
    package var gatherNodes: [Int] { plan.nodes.indices.filter { isGathered[$0] } }

    /// The items of each expanded task that shard `shard` runs, as `(task, range)`, for messages.
    package func items(in shard: Shard) -> [(task: String, items: Range<Int>)] {
        plan.workflow.tasks.indices.compactMap { taskIndex in
            let task = plan.workflow.tasks[taskIndex]
            guard task.forEach != nil, nodeCounts[taskIndex] > 0 else { return nil }
            return (task.id.value, shard.items(of: nodeCounts[taskIndex]))
        }
    }

    /// Item blocks as messages name them: "items 50–99 of 'fetch', item 7 of 'other'"; empty blocks left out.
    package static func describe(_ items: [(task: String, items: Range<Int>)]) -> String {
        items.filter { !$0.items.isEmpty }.map { entry in
            let last = entry.items.upperBound - 1
            let span = entry.items.count == 1 ? "item \(last)" : "items \(entry.items.lowerBound)–\(last)"
            return "\(span) of '\(entry.task)'"
        }.joined(separator: ", ")
    }

    /// The gather tasks that read values made in the shards — outputs that cross from one machine to another
    /// through the store. A gather node that only waits for the shards (a `noop`, a `command` without
    /// `stdin: true` run after the files are written) reads nothing from them.
    package var tasksReadingShardOutputs: [String] {
        var names: [String] = []
        for (index, node) in plan.nodes.enumerated() where isGathered[index] && readsShardOutputs(index) {
            if !names.contains(plan.task(of: node).id.value) { names.append(plan.task(of: node).id.value) }
        }
        return names
    }

    /// The nodes run in the shards whose outputs a gather node reads, in plan order: a shard stores their
    /// values, and the gather phase reads them back.
    package var valueNodes: [Int] {
        var crossing = [Bool](repeating: false, count: plan.nodes.count)
        for index in plan.nodes.indices where isGathered[index] && readsShardOutputs(index) {
            let input = plan.task(of: plan.nodes[index]).input?.value
            for dependency in plan.dependencies(of: index) where !isGathered[dependency] {
                // Only what is read: a value (not a written file), from the `input:` task when one is named.
                let task = plan.nodes[dependency].taskIndex
                guard plan.taskTypes[task].provides?.valueType != nil,
                    input == nil || input == plan.workflow.tasks[task].id.value
                else { continue }
                crossing[dependency] = true
            }
        }
        return plan.nodes.indices.filter { crossing[$0] }
    }

    /// The shard that runs a node of an expanded task; `nil` for a node of no item (shard 1 runs it, and every
    /// shard that needs it).
    package func shard(of index: Int, count: Int) -> Shard? {
        let node = plan.nodes[index]
        guard let item = node.itemIndex else { return nil }
        let shard = Shard.containing(item: item, of: nodeCounts[node.taskIndex], count: count)
        return try? Shard(index: shard, count: count)
    }

    /// Whether a gathered node reads an output made in the shards.
    private func readsShardOutputs(_ index: Int) -> Bool {
        plan.dependencies(of: index).contains { !isGathered[$0] } && reads(plan.nodes[index])
    }

    /// Whether a node reads its dependencies' outputs. A task that accepts anything is taken to read them unless
    /// it is known not to: `noop`, and `command` without `stdin: true`.
    private func reads(_ node: PlannedNode) -> Bool {
        if plan.inputKinds[node.taskIndex] != nil { return true }
        let type = plan.taskTypes[node.taskIndex]
        guard type.consumes == .anything else { return false }
        switch type.name {
        case NoopTask().name: return false
        case CommandTask().name: return CommandTask.Parameters(complete: plan.parameters(of: node))?.stdin == true
        default: return true
        }
    }
}
