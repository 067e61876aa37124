/// Checks that every task's `type` is registered. A task without a readable `type` has been reported by the
/// decoder (its type is empty) and is not reported again.
struct TaskTypeValidator: WorkflowValidator {
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        let names = context.registry.names
        for task in context.workflow.tasks where !task.type.value.isEmpty && context.type(of: task) == nil {
            diagnostics.error(
                "unknown task type '\(task.type.value)'", at: task.type.location,
                suggestion: Suggestion.closest(to: task.type.value, in: names),
                hint: "`flowrun tasks` lists the types: \(names.joined(separator: ", "))")
        }
    }
}
