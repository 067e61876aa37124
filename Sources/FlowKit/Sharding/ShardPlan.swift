import FlowBasics

/// Where each node of a plan runs when the run is split into shards: in the shard of its item, in every shard
/// that needs it, or in the gather phase.
///
/// - A node of an expanded task (`fetch[i]`) runs in the shard whose block holds item `i` (see ``Shard``); one of a
///   list made at run time (`forEach: { from: TASK }`, and the tasks zipped with it), in the shard its item's key
///   names (``Shard/owner(ofItemKey:count:)``).
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
    /// Whether each task, by index, iterates a list made at run time: its items go to shards by key.
    package let iteratesRunTimeList: [Bool]
    /// The hash of each node's item key (``Shard/hash(ofItemKey:)``), by node index, for the nodes of lists made at
    /// run time; empty when the plan has none. Hashed once: every shard's nodes are drawn from it.
    private let keyHashes: [UInt64]

    /// The items of one expanded task a shard runs.
    package enum Items: Sendable {
        /// A block of a list known before the run, by index.
        case block(Range<Int>)
        /// Of a list made at run time: how many of its `total` items have a key that names the shard.
        case byKey(count: Int, total: Int)
    }

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
        let runTime = Self.runTimeListTasks(of: plan.workflow)
        iteratesRunTimeList = runTime
        keyHashes =
            runTime.contains(true)
            ? plan.nodes.indices.map { index in
                let node = plan.nodes[index]
                guard node.itemIndex != nil, runTime[node.taskIndex] else { return 0 }
                // The node id is `task[KEY]` (``PlannedNode/id``).
                return Shard.hash(
                    ofItemKey: node.id.dropFirst(plan.workflow.tasks[node.taskIndex].id.value.count + 1).dropLast())
            } : []
    }

    /// Whether any task has `forEach` items to split, or will have once a list made at run time is known.
    package var hasItems: Bool {
        plan.nodes.contains { $0.itemIndex != nil } || iteratesRunTimeList.contains(true)
    }

    /// Whether the plan has a list made at run time (`forEach: { from: TASK }`), so a split run makes the lists
    /// first: the producers run once, and every shard and the gather phase read what they printed.
    package var hasRunTimeLists: Bool { plan.workflow.tasks.contains { $0.forEach?.producer != nil } }

    /// The nodes of the lists step, in plan order: the producers of the lists made at run time and every node
    /// they need. A split run makes the lists once, before the shards (`--lists`), and every shard runs them again
    /// or, up to date, replays what they printed from the store — so every shard splits the same lists.
    package var listNodes: [Int] {
        let taskIndex = plan.workflow.taskIndex()
        let producers = Set(plan.workflow.tasks.compactMap { $0.forEach?.producer.flatMap { taskIndex[$0.value] } })
        guard !producers.isEmpty else { return [] }
        let needed = GraphAlgorithms.reachable(
            from: plan.nodes.indices.filter { producers.contains(plan.nodes[$0].taskIndex) }, count: plan.nodes.count,
            successors: plan.graph.forEachDependency)
        return plan.nodes.indices.filter { needed[$0] }
    }

    /// The producers of lists made at run time that the store never reuses (`cache: false`, or a `command`
    /// without `cache: true`): a shard cannot replay the lists step's list, and makes its own.
    package var producersNotReplayed: [String] {
        let tasks = plan.workflow.tasks
        let taskIndex = plan.workflow.taskIndex()
        var names: [String] = []
        for task in tasks {
            guard let name = task.forEach?.producer?.value, let index = taskIndex[name], !names.contains(name) else {
                continue
            }
            let cache = tasks[index].cache
            if cache == .disabled || (cache == nil && !plan.taskTypes[index].cachedByDefault) { names.append(name) }
        }
        return names
    }

    /// The shard that runs node `index` of an expanded task: the block of its item, or the key of an item of a
    /// list made at run time; `nil` for a node of no item.
    private func owner(of index: Int, count: Int) -> Int? {
        let node = plan.nodes[index]
        guard let item = node.itemIndex else { return nil }
        if iteratesRunTimeList[node.taskIndex] { return Shard.owner(ofKeyHash: keyHashes[index], count: count) }
        return Shard.containing(item: item, of: nodeCounts[node.taskIndex], count: count)
    }

    /// The tasks, by index, that iterate a list made at run time: its fan-out, and every task zipped with it (a
    /// task without `forEach` or `gather` that depends on one).
    private static func runTimeListTasks(of workflow: Workflow) -> [Bool] {
        var found = workflow.tasks.map { $0.forEach?.producer != nil }
        let taskIndex = workflow.taskIndex()
        var changed = found.contains(true)
        while changed {
            changed = false
            for (index, task) in workflow.tasks.enumerated() where !found[index] && !task.gather && task.forEach == nil
            {
                if task.dependsOn.contains(where: { taskIndex[$0.value].map { found[$0] } ?? false }) {
                    found[index] = true
                    changed = true
                }
            }
        }
        return found
    }

    /// The nodes shard `shard` runs, in plan order.
    package func nodes(in shard: Shard) -> [Int] {
        var selected = [Bool](repeating: false, count: plan.nodes.count)
        for index in plan.nodes.indices where !isGathered[index] {
            selected[index] = (owner(of: index, count: shard.count) ?? 1) == shard.index
        }
        // What a selected node needs runs in its shard too.
        let needed = GraphAlgorithms.reachable(
            from: plan.nodes.indices.filter { selected[$0] }, count: plan.nodes.count,
            successors: plan.graph.forEachDependency)
        return plan.nodes.indices.filter { needed[$0] }
    }

    /// The nodes of the gather phase, in plan order.
    package var gatherNodes: [Int] { plan.nodes.indices.filter { isGathered[$0] } }

    /// The items of each expanded task that shard `shard` runs, for messages.
    package func items(in shard: Shard) -> [(task: String, items: Items)] {
        var firstNode: [Int: Int] = [:]
        for (index, node) in plan.nodes.enumerated() where firstNode[node.taskIndex] == nil {
            firstNode[node.taskIndex] = index
        }
        return plan.workflow.tasks.indices.compactMap { taskIndex in
            let task = plan.workflow.tasks[taskIndex]
            let total = nodeCounts[taskIndex]
            guard task.forEach != nil, total > 0 else { return nil }
            guard iteratesRunTimeList[taskIndex], let first = firstNode[taskIndex] else {
                return (task.id.value, .block(shard.items(of: total)))
            }
            let count = (first..<first + total).count { owner(of: $0, count: shard.count) == shard.index }
            return (task.id.value, .byKey(count: count, total: total))
        }
    }

    /// A shard's items as messages name them: "items 50–99 of 'fetch', item 7 of 'other', 3 of the 10 items of
    /// 'each' (by key)"; tasks of which the shard runs no item left out.
    package static func describe(_ items: [(task: String, items: Items)]) -> String {
        items.compactMap { entry in
            switch entry.items {
            case .block(let block) where block.isEmpty: return nil
            case .byKey(count: 0, _): return nil
            case .block(let block):
                let last = block.upperBound - 1
                let span = block.count == 1 ? "item \(last)" : "items \(block.lowerBound)–\(last)"
                return "\(span) of '\(entry.task)'"
            case .byKey(let count, let total):
                return "\(count) of the \(total) item\(total == 1 ? "" : "s") of '\(entry.task)' (by key)"
            }
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
        owner(of: index, count: count).flatMap { try? Shard(index: $0, count: count) }
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
