import FlowBasics

extension Plan {
    /// The plan cut down to some targets and everything they need: `--target save` (every node of a task),
    /// `--target 'save[photos/a.jpg]'` (one node, named by its item's key). Make's `make target`.
    /// - Parameters:
    ///   - targets: Task ids and node ids, as given on the command line.
    ///   - diagnostics: Where unknown targets are reported (with a did-you-mean), at no place in the file.
    /// - Returns: The restricted plan, or `nil` when a target is unknown.
    ///
    /// A target among a list made at run time that is not known yet (`--target 'each[a]'` before `list` has run)
    /// keeps the list's producer, and the plan remembers the targets (``targets``) to cut it again once the list
    /// is known (`listsKnown`).
    package func restricted(to targets: [String], listsKnown: Bool = false, diagnostics: inout Diagnostics) -> Plan? {
        var roots: [Int] = []
        let nodeIndex = Dictionary(
            nodes.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { a, _ in a })
        let taskIndex = workflow.taskIndex()
        let producers = listsKnown ? [:] : runTimeProducers()
        /// A target among a list made at run time needs its producer now; it is found once the list is known.
        func producerNode(of target: String) -> Int? {
            let task = taskIndex[target] ?? target.firstIndex(of: "[").flatMap { taskIndex[String(target[..<$0])] }
            return task.flatMap { producers[$0] }.flatMap { producer in
                nodes.firstIndex { $0.taskIndex == producer }
            }
        }
        for target in targets {
            if let index = nodeIndex[target] {
                roots.append(index)
            } else if let task = taskIndex[target], nodes.contains(where: { $0.taskIndex == task }) {
                roots.append(contentsOf: nodes.indices.filter { nodes[$0].taskIndex == task })
            } else if let producer = producerNode(of: target) {
                roots.append(producer)
            } else if let task = taskIndex[target] {
                roots.append(contentsOf: nodes.indices.filter { nodes[$0].taskIndex == task })
            } else if workflow.groups.contains(where: { $0.id == target }) {
                // An imported pipeline: every task in it, nested pipelines included.
                roots.append(
                    contentsOf: nodes.indices.filter {
                        let group = workflow.tasks[nodes[$0].taskIndex].group ?? ""
                        return group == target || group.hasPrefix(target + ".")
                    })
            } else {
                reportUnknown(target, taskIndex: taskIndex, diagnostics: &diagnostics)
            }
        }
        if diagnostics.hasErrors { return nil }
        let keep = GraphAlgorithms.reachable(from: roots, count: nodes.count, successors: graph.forEachDependency)
        var restricted = restricted(to: nodes.indices.filter { keep[$0] })
        if !producers.isEmpty { restricted.targets = targets }
        return restricted
    }

    /// For each task that runs once per item of a list made at run time (`forEach: { from: TASK }`, and the
    /// tasks that follow it item by item), the task index of the list's producer.
    func runTimeProducers() -> [Int: Int] {
        let tasks = workflow.tasks
        let taskIndex = workflow.taskIndex()
        var producers: [Int: Int] = [:]
        var stack: [(task: Int, producer: Int)] = tasks.indices.compactMap { index in
            tasks[index].forEach?.producer.flatMap { taskIndex[$0.value] }.map { (index, $0) }
        }
        while let (task, producer) = stack.popLast() {
            guard producers.updateValue(producer, forKey: task) == nil else { continue }
            for (index, other) in tasks.enumerated() where !other.gather && other.forEach == nil {
                if other.dependsOn.contains(where: { taskIndex[$0.value] == task }) { stack.append((index, producer)) }
            }
        }
        return producers
    }

    private func reportUnknown(_ target: String, taskIndex: [String: Int], diagnostics: inout Diagnostics) {
        let ids = workflow.tasks.map(\.id.value)
        if let open = target.firstIndex(of: "["), let task = taskIndex[String(target[..<open])] {
            let items = nodes.filter { $0.taskIndex == task && $0.itemIndex != nil }.map(\.id)
            let id = ids[task]
            let hint: String
            switch items.count {
            case 0: hint = "task '\(id)' runs once, not per item: write --target \(id)"
            case 1: hint = "task '\(id)' has 1 item: \(items[0])"
            default:
                hint =
                    "task '\(id)' has \(items.count) items, named by their keys: \(items[0]) to \(items[items.count - 1])"
            }
            diagnostics.error(
                "unknown target '\(target)'", at: nil,
                suggestion: Suggestion.closest(to: target, in: items), hint: hint)
            return
        }
        diagnostics.error(
            "unknown target '\(target)'", at: nil,
            suggestion: Suggestion.closest(to: target, in: ids + workflow.groups.map(\.id)),
            hint:
                "a target is a task id (\(ids.prefix(8).joined(separator: ", "))\(ids.count > 8 ? ", …" : "")) or one node, such as save[photos/a.jpg]"
        )
    }
}
