import FlowBasics

/// Finds dependency cycles and reports each with its full path, `a → b → c → a`, and a note at every edge.
struct CycleValidator: WorkflowValidator {
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        let tasks = context.workflow.tasks
        // Edges follow dependsOn: task → each task it depends on, with the entry's location.
        let edges: [[(target: Int, location: SourceLocation)]] = tasks.map { task in
            task.dependsOn.compactMap { entry in
                guard let target = context.taskIndex[entry.value], entry.value != task.id.value else { return nil }
                return (target, entry.location)
            }
        }
        GraphAlgorithms.findCycles(
            count: tasks.count, successors: { edges[$0].map(\.target) },
            onCycle: { steps in
                let taken = steps.map { edges[$0.node][$0.edge] }
                let path = (steps.map { tasks[$0.node].id.value } + [tasks[steps[0].node].id.value])
                    .joined(separator: " → ")
                let notes = zip(steps, taken).map { step, edge in
                    Diagnostic.note(
                        "'\(tasks[step.node].id.value)' depends on '\(tasks[edge.target].id.value)' here",
                        at: edge.location)
                }
                diagnostics.error(
                    "dependency cycle: \(path)", at: taken.first?.location,
                    hint: "remove one of these dependencies to break the cycle", notes: notes)
            })
    }
}
