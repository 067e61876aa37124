import FlowBasics

/// Checks `forEach: { from: TASK }`: the producer is a known task other than the fan-out, runs once, provides
/// data to read the list from, and does not itself wait for the items (so its list can be known first).
struct RunTimeListValidator: WorkflowValidator {
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        let tasks = context.workflow.tasks
        guard tasks.contains(where: { $0.forEach?.producer != nil }) else { return }
        let expanded = context.expandedTasks()
        let downstream = Downstream(context)
        for (index, task) in tasks.enumerated() {
            guard let producer = task.forEach?.producer else { continue }
            let fanOut = task.id.value
            guard let producerIndex = context.taskIndex[producer.value] else {
                diagnostics.error(
                    "the list of task '\(fanOut)' comes from unknown task '\(producer.value)'", at: producer.location,
                    suggestion: Suggestion.closest(to: producer.value, in: tasks.map(\.id.value)),
                    hint: "'from' names the task whose output (a JSON array, or lines) is the list")
                continue
            }
            if producerIndex == index {
                diagnostics.error(
                    "the list of task '\(fanOut)' comes from itself", at: producer.location,
                    hint: "name the task that prints the list")
                continue
            }
            let producerTask = tasks[producerIndex]
            if downstream.reaches(from: index, to: producerIndex) {
                diagnostics.error(
                    "task '\(producer.value)' runs after '\(fanOut)', so its list cannot be known before '\(fanOut)' runs",
                    at: producer.location,
                    hint:
                        "the fan-out waits for its list: '\(producer.value)' must not depend on '\(fanOut)' or its items"
                )
            } else if expanded[producerIndex] {
                diagnostics.error(
                    "task '\(producer.value)' runs once per item, so it makes no single list for '\(fanOut)'",
                    at: producer.location,
                    hint: "make the list in a task without 'forEach', or gather the items first ('gather: true')")
            }
            if let type = context.type(of: producerTask), type.provides != .data {
                diagnostics.error(
                    "task '\(producer.value)' (type '\(producerTask.type.value)') provides no data to read a list from",
                    at: producer.location,
                    hint: "a list comes from a task whose output is bytes: a 'command' printing it, or a 'fetch'")
            }
        }
    }

    /// The tasks each task leads to, through `dependsOn` (gathers included).
    private struct Downstream {
        let dependents: [[Int]]

        init(_ context: ValidationContext) {
            var dependents = [[Int]](repeating: [], count: context.workflow.tasks.count)
            for (index, upstream) in context.upstream.enumerated() {
                for dependency in upstream { dependents[dependency].append(index) }
            }
            self.dependents = dependents
        }

        func reaches(from start: Int, to target: Int) -> Bool {
            GraphAlgorithms.reachable(from: [start], count: dependents.count) { task, body in
                dependents[task].forEach(body)
            }[target]
        }
    }
}
