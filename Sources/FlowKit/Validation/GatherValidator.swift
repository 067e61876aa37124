/// Checks `gather: true`: a gather task collects the items of an expanded dependency, so it has one, and is
/// not expanded itself.
struct GatherValidator: WorkflowValidator {
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        let expanded = context.expandedTasks()
        for task in context.workflow.tasks where task.gather {
            if let spec = task.forEach {
                diagnostics.error(
                    "task '\(task.id.value)' has both 'forEach' and 'gather: true'", at: spec.location,
                    hint: "a gather task runs once over its dependencies' items; drop one of the two")
            } else if !task.dependsOn.contains(where: { context.taskIndex[$0.value].map { expanded[$0] } ?? true }) {
                // An unknown dependency (`?? true`) may be the forEach task it was meant to name: reported once,
                // by ``DependencyValidator``.
                diagnostics.error(
                    "task '\(task.id.value)' has 'gather: true' but depends on no forEach task", at: task.id.location,
                    hint:
                        "gather collects the items of an expanded dependency; remove 'gather' or depend on a forEach task"
                )
            }
        }
    }
}
