import FlowS3

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

    /// The nodes over lists made at run time that would write a file an earlier node writes: the other nodes
    /// keep their files, then the items claim theirs in list order (in plan order within an item).
    private func writeCollisions(leavingOut failing: [Int: NodeFailure]) -> [Int: NodeFailure] {
        var overLists = [Bool](repeating: false, count: plan.workflow.tasks.count)
        for (index, task) in plan.workflow.tasks.enumerated() where task.forEach?.producer != nil {
            for over in plan.workflow.tasksOverList(of: index) { overLists[over] = true }
        }
        var sharedPaths: [Int: String?] = [:]  // of the tasks whose parameters do not depend on the item
        func path(of index: Int) -> String? {
            let task = plan.nodes[index].taskIndex
            guard plan.sharedParameters[task] != nil else { return outputPath(of: index) }
            if let known = sharedPaths[task] { return known }
            let path = outputPath(of: index)
            sharedPaths[task] = path
            return path
        }
        var items: [(item: Int, index: Int, path: String)] = []
        for index in plan.nodes.indices where overLists[plan.nodes[index].taskIndex] && failing[index] == nil {
            if let path = path(of: index) { items.append((plan.nodes[index].itemIndex ?? 0, index, path)) }
        }
        guard !items.isEmpty else { return [:] }
        items.sort { ($0.item, $0.index) < ($1.item, $1.index) }
        let directory = plan.workflow.directory
        func file(_ path: String) -> String {
            S3Location.isS3(path) ? path : OutputLedger.identity(of: path, in: directory)
        }
        var writers: [String: Int] = [:]
        for index in plan.nodes.indices where !overLists[plan.nodes[index].taskIndex] {
            if let path = path(of: index), writers[file(path)] == nil { writers[file(path)] = index }
        }
        var collisions: [Int: NodeFailure] = [:]
        for (_, index, path) in items {
            let file = file(path)
            guard let writer = writers[file] else {
                writers[file] = index
                continue
            }
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
