/// The nodes of lists made at run time that must fail before they run, decided once the lists are known: the
/// nodes of an item whose key an earlier item has, and a node that would write a file another node of the run
/// writes. Validation checks both for lists known before the run; these items only arrive with their producer.
/// The earlier item (in list order) keeps its key and its file, so the outcome is the same on every run, whatever
/// ran first or is cached.
struct RunTimeItemFaults {
    let plan: Plan

    /// The failures, by node index in ``plan``.
    /// - Parameter duplicates: Each fan-out's duplicate items (``RunTimeItems/List/duplicates``), by task index.
    func failures(duplicates: [Int: [Int: RunTimeItems.Duplicate]]) -> [Int: NodeFailure] {
        var failures: [Int: NodeFailure] = [:]
        for (fanOut, itemDuplicates) in duplicates where !itemDuplicates.isEmpty {
            let tasks = plan.workflow.tasksOverList(of: fanOut)
            for (index, node) in plan.nodes.enumerated() where tasks.contains(node.taskIndex) {
                guard let item = node.itemIndex, let duplicate = itemDuplicates[item] else { continue }
                failures[index] = duplicateFailure(item: item, duplicate, fanOut: fanOut, node: node.id)
            }
        }
        for (index, failure) in writeCollisions(leavingOut: failures) { failures[index] = failure }
        return failures
    }

    private func duplicateFailure(item: Int, _ duplicate: RunTimeItems.Duplicate, fanOut: Int, node: String)
        -> NodeFailure
    {
        let task = plan.workflow.tasks[fanOut]
        let producer = task.forEach?.producer?.value ?? ""
        return NodeFailure(
            .invalidInput,
            "item \(item) of the list of '\(task.id.value)' from '\(producer)' has the key '\(duplicate.key)', as "
                + "item \(duplicate.first) has ('\(task.id.value)[\(duplicate.key)]' runs): an item is known by its "
                + "key; give each item a key of its own",
            node: node, location: task.forEach?.location)
    }

    /// The nodes over lists made at run time that would write a file an earlier node writes: every other node
    /// first, then the items in list order.
    private func writeCollisions(leavingOut failing: [Int: NodeFailure]) -> [Int: NodeFailure] {
        var overLists = Set<Int>()
        for (index, task) in plan.workflow.tasks.enumerated() where task.forEach?.producer != nil {
            overLists.formUnion(plan.workflow.tasksOverList(of: index))
        }
        guard !overLists.isEmpty else { return [:] }
        let order = plan.nodes.indices.sorted { lhs, rhs in
            let left = plan.nodes[lhs]
            let right = plan.nodes[rhs]
            let leftLate = overLists.contains(left.taskIndex)
            let rightLate = overLists.contains(right.taskIndex)
            if leftLate != rightLate { return rightLate }
            if leftLate, left.itemIndex != right.itemIndex { return (left.itemIndex ?? 0) < (right.itemIndex ?? 0) }
            return lhs < rhs
        }
        var writers: [String: Int] = [:]
        var collisions: [Int: NodeFailure] = [:]
        var sharedPaths: [Int: String?] = [:]  // of the tasks whose parameters do not depend on the item
        for index in order where failing[index] == nil {
            let task = plan.nodes[index].taskIndex
            if plan.sharedParameters[task] != nil, sharedPaths[task] == nil {
                sharedPaths[task] = outputPath(of: index)
            }
            guard let path = sharedPaths[task] ?? outputPath(of: index) else { continue }
            let file = S3Location.isS3(path) ? path : OutputLedger.identity(of: path, in: plan.workflow.directory)
            guard let writer = writers[file] else {
                writers[file] = index
                continue
            }
            guard overLists.contains(plan.nodes[index].taskIndex) else { continue }
            let node = plan.nodes[index]
            collisions[index] = NodeFailure(
                .io,
                "refusing to write '\(path)', which '\(plan.nodes[writer].id)' writes in this run: give each item "
                    + "its own path",
                node: node.id, location: plan.workflow.tasks[node.taskIndex].location)
        }
        return collisions
    }

    /// The file a node writes, as the workflow names it; `nil` for a node that writes none or whose parameters
    /// do not resolve (it fails with them when it runs).
    private func outputPath(of index: Int) -> String? {
        let node = plan.nodes[index]
        var diagnostics = Diagnostics()
        let parameters = plan.parameters(of: node, diagnostics: &diagnostics)
        guard !diagnostics.hasErrors else { return nil }
        return plan.taskTypes[node.taskIndex].outputPath(parameters)
    }
}

extension Workflow {
    /// The tasks whose nodes are the items of the list a fan-out task makes: the fan-out and every task that
    /// depends on one of them without gathering.
    func tasksOverList(of fanOut: Int) -> Set<Int> {
        let taskIndex = taskIndex()
        var over = Set<Int>()
        var stack = [fanOut]
        while let task = stack.popLast() {
            guard over.insert(task).inserted else { continue }
            for (index, other) in tasks.enumerated() where !other.gather {
                if other.dependsOn.contains(where: { taskIndex[$0.value] == task }) { stack.append(index) }
            }
        }
        return over
    }
}
