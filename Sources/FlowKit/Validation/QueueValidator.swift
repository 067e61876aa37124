import OrderedCollections

/// Checks that every task's `queue` is declared (`default` always is).
struct QueueValidator: WorkflowValidator {
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        let names = Array(context.workflow.queues.keys)
        for task in context.workflow.tasks {
            guard let queue = task.queue, context.workflow.queues[queue.value] == nil else { continue }
            diagnostics.error(
                "task '\(task.id.value)' uses unknown queue '\(queue.value)'", at: queue.location,
                suggestion: Suggestion.closest(to: queue.value, in: names),
                hint:
                    "declare it under 'queues:' (e.g. \(queue.value): { maxConcurrent: 2 }) or use one of: \(names.joined(separator: ", "))"
            )
        }
    }
}
