/// Warns about a `command`'s `inputs:` entry that names no file (a glob that matches nothing, a path that does
/// not exist), as a `forEach` glob that matches nothing is: the key then holds nothing of what was meant.
/// Entries with `${…}` are resolved per node and not checked here.
struct CommandInputsValidator: WorkflowValidator {
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        let directory = context.workflow.directory
        for task in context.workflow.tasks where context.type(of: task) is CommandTask {
            guard let entries = task.parameters["inputs"]?.value.sequence else { continue }
            for entry in entries {
                guard let pattern = entry.scalar, !pattern.contains("${") else { continue }
                if CommandCode.matches(of: pattern, directory: directory).isEmpty {
                    diagnostics.append(
                        Diagnostic(
                            .warning, "'inputs' pattern '\(pattern)' matches no file", at: entry.location,
                            hint: "the files it names are part of the command's key; none is"))
                }
            }
        }
    }
}
