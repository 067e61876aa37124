/// Checks `dependsOn` entries: known ids, no self-dependency, no repeats.
struct DependencyValidator: WorkflowValidator {
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        let ids = context.workflow.tasks.map(\.id.value)
        for task in context.workflow.tasks {
            var seen: [String: SourceLocation] = [:]
            for entry in task.dependsOn {
                if entry.value == task.id.value {
                    diagnostics.error(
                        "task '\(task.id.value)' depends on itself", at: entry.location,
                        hint: "remove '\(entry.value)' from its dependsOn")
                } else if context.taskIndex[entry.value] == nil {
                    diagnostics.error(
                        "task '\(task.id.value)' depends on unknown task '\(entry.value)'", at: entry.location,
                        suggestion: Suggestion.closest(to: entry.value, in: ids))
                }
                if let first = seen[entry.value] {
                    diagnostics.error(
                        "task '\(task.id.value)' lists '\(entry.value)' twice in dependsOn", at: entry.location,
                        notes: [.note("first listed here", at: first)])
                } else {
                    seen[entry.value] = entry.location
                }
            }
        }
    }
}
