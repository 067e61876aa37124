/// Finds dependency cycles and reports each with its full path, `a → b → c → a`, and a note at every edge.
struct CycleValidator {
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        let tasks = context.workflow.tasks
        // Edges follow dependsOn: task → each task it depends on, with the entry's location.
        let edges: [[(target: Int, location: SourceLocation)]] = tasks.map { task in
            task.dependsOn.compactMap { entry in
                guard let target = context.taskIndex[entry.value], entry.value != task.id.value else { return nil }
                return (target, entry.location)
            }
        }
        enum Color { case white, gray, black }
        var color = [Color](repeating: .white, count: tasks.count)
        // An explicit stack of (node, next edge to try): deep chains cannot overflow the call stack.
        for root in tasks.indices where color[root] == .white {
            var stack: [(node: Int, edge: Int)] = [(root, 0)]
            color[root] = .gray
            while let (node, edge) = stack.last {
                guard edge < edges[node].count else {
                    color[node] = .black
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].edge += 1
                let target = edges[node][edge].target
                switch color[target] {
                case .white:
                    color[target] = .gray
                    stack.append((target, 0))
                case .gray:
                    report(cycleEndingAt: target, stack: stack, edges: edges, context: context, into: &diagnostics)
                case .black:
                    break
                }
            }
        }
    }

    private func report(
        cycleEndingAt target: Int, stack: [(node: Int, edge: Int)],
        edges: [[(target: Int, location: SourceLocation)]], context: ValidationContext,
        into diagnostics: inout Diagnostics
    ) {
        let tasks = context.workflow.tasks
        guard let start = stack.firstIndex(where: { $0.node == target }) else { return }
        let members = stack[start...]
        let path = (members.map { tasks[$0.node].id.value } + [tasks[target].id.value]).joined(separator: " → ")
        let notes = members.map { frame -> Diagnostic in
            let edge = edges[frame.node][frame.edge - 1]
            return .note(
                "'\(tasks[frame.node].id.value)' depends on '\(tasks[edge.target].id.value)' here", at: edge.location)
        }
        let first = members.first.map { edges[$0.node][$0.edge - 1].location }
        diagnostics.error(
            "dependency cycle: \(path)", at: first, hint: "remove one of these dependencies to break the cycle",
            notes: notes)
    }
}
