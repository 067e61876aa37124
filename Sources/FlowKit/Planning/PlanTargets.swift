extension Plan {
    /// The plan cut down to some targets and everything they need: `--target save` (every node of a task),
    /// `--target 'save[photos/a.jpg]'` (one node, named by its item's key). Make's `make target`.
    /// - Parameters:
    ///   - targets: Task ids and node ids, as given on the command line.
    ///   - diagnostics: Where unknown targets are reported (with a did-you-mean), at no place in the file.
    /// - Returns: The restricted plan, or `nil` when a target is unknown.
    package func restricted(to targets: [String], diagnostics: inout Diagnostics) -> Plan? {
        var roots: [Int] = []
        let nodeIndex = Dictionary(
            nodes.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { a, _ in a })
        let taskIndex = workflow.taskIndex()
        for target in targets {
            if let index = nodeIndex[target] {
                roots.append(index)
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
        return restricted(to: nodes.indices.filter { keep[$0] })
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
