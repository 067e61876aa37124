/// Type-checks every edge statically: a task that consumes a kind must have exactly one dependency that
/// provides it, or an `input:` that picks one.
struct KindValidator: WorkflowValidator {
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        for task in context.workflow.tasks {
            guard let type = context.type(of: task) else { continue }
            // An unknown dependency is reported by DependencyValidator; judging the edges without it would add
            // a misleading "depends on no task".
            if task.dependsOn.contains(where: { context.taskIndex[$0.value] == nil }) { continue }
            let dependencies = context.dependencies(of: task)
            if let input = task.input {
                checkInput(
                    input, of: task, type: type, dependencies: dependencies, context: context, into: &diagnostics)
                continue
            }
            let needed = type.consumes.kinds
            guard !needed.isEmpty else { continue }
            let providers = dependencies.filter { dependency in
                context.type(of: dependency.task)?.provides?.read(as: needed) != nil
            }
            let neededText = Self.describe(needed)
            if providers.count == 1 { continue }
            if providers.count > 1 {
                let names = providers.map { "'\($0.task.id.value)'" }.joined(separator: ", ")
                diagnostics.error(
                    "task '\(task.id.value)' (\(type.name)) has \(providers.count) dependencies that provide \(neededText): \(names)",
                    at: task.id.location, hint: "add 'input: \(providers[0].task.id.value)' to say which one it reads")
                continue
            }
            // No provider: say what the dependencies do provide, and what would bridge the gap.
            let typed = dependencies.compactMap { dep in context.type(of: dep.task).map { (dep, $0) } }
            guard typed.count == dependencies.count else { continue }  // unknown types are reported elsewhere
            if typed.isEmpty {
                let sources = context.registry.all.filter { $0.provides.map(needed.contains) ?? false }.map(\.name)
                diagnostics.error(
                    "task '\(task.id.value)' (\(type.name)) needs \(Self.article(neededText)) input but depends on no task",
                    at: task.id.location,
                    hint:
                        "add 'dependsOn:' naming a task that provides \(neededText) (types: \(sources.joined(separator: ", ")))"
                )
                continue
            }
            let (dependency, dependencyType) = typed[0]
            let provided = dependencyType.provides.map { "provides \($0)" } ?? "provides nothing"
            var hint = "depend on a task that provides \(neededText)"
            if let providedKind = dependencyType.provides,
                let adapter = context.registry.adapters(from: providedKind, to: needed).first
            {
                hint =
                    "add a \(adapter.name) task between them: \(adapter.name)'s input is \(providedKind), its output \(adapter.provides?.name ?? "")"
            }
            diagnostics.error(
                "task '\(task.id.value)' (\(type.name)) needs \(Self.article(neededText)); '\(dependency.task.id.value)' (\(dependencyType.name)) \(provided)",
                at: dependency.location, hint: hint)
        }
    }

    private func checkInput(
        _ input: Located<String>, of task: TaskSpec, type: any TaskType,
        dependencies: [(task: TaskSpec, location: SourceLocation)], context: ValidationContext,
        into diagnostics: inout Diagnostics
    ) {
        guard let chosen = dependencies.first(where: { $0.task.id.value == input.value }) else {
            diagnostics.error(
                "task '\(task.id.value)' reads input '\(input.value)', which is not one of its dependencies",
                at: input.location, suggestion: Suggestion.closest(to: input.value, in: task.dependsOn.map(\.value)),
                hint: "'input:' must name a task listed in dependsOn")
            return
        }
        let needed = type.consumes.kinds
        guard !needed.isEmpty, let chosenType = context.type(of: chosen.task) else { return }
        if chosenType.provides?.read(as: needed) != nil { return }
        diagnostics.error(
            "task '\(task.id.value)' (\(type.name)) needs \(Self.article(Self.describe(needed))); its input '\(input.value)' (\(chosenType.name)) provides \(chosenType.provides?.name ?? "nothing")",
            at: input.location)
    }

    /// The kind a task reads: what its `input:` or its one providing dependency provides, when the task
    /// consumes a kind; `nil` otherwise or when the graph leaves it open.
    static func inputKind(of task: TaskSpec, _ context: ValidationContext) -> ProviderKind? {
        guard let type = context.type(of: task) else { return nil }
        let needed = type.consumes.kinds
        guard !needed.isEmpty else { return nil }
        let provided = context.dependencies(of: task)
            .filter { task.input == nil || $0.task.id.value == task.input?.value }
            .compactMap { context.type(of: $0.task)?.provides?.read(as: needed) }
        return provided.count == 1 ? provided[0] : nil
    }

    static func describe(_ kinds: [ProviderKind]) -> String {
        kinds.map(\.name).joined(separator: " or ")
    }

    static func article(_ noun: String) -> String {
        guard let first = noun.first else { return noun }
        return ("aeiou".contains(first) ? "an " : "a ") + noun
    }
}
