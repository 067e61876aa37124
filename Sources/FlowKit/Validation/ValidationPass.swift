/// Validates a workflow in one pass and makes its plan: every validator of ``validators`` in order, the task
/// checks first, then the `forEach` expansion (which reports the lists it cannot read), then the node checks.
/// Every problem found on the way is in the diagnostics; a plan is made only when there is none.
enum ValidationPass {
    /// Every check of a workflow, in the order they run. The decoder reports only what keeps a file from being
    /// read as a workflow (YAML shapes, keys, value types); what a workflow means is checked here.
    static let validators: [any WorkflowValidator] = [
        TaskTypeValidator(),
        DependencyValidator(),
        CycleValidator(),
        QueueValidator(),
        ReferenceValidator(),
        KindValidator(),
        GatherValidator(),
        RunTimeListValidator(),
        NodeParameterValidator(),
    ]

    /// Checks the workflow and, when nothing is wrong, plans it.
    /// - Parameters:
    ///   - workflow: The decoded workflow, pipelines imported and `--param` overrides applied.
    ///   - registry: The task types.
    ///   - environment: What `${env.NAME}` reads.
    ///   - strict: Whether a glob that matches no files is an error rather than a warning.
    ///   - checksFiles: Whether the files that must be there before a run are checked (``RequiredFileValidator``).
    ///   - diagnostics: Where every problem goes.
    /// - Returns: The plan, or `nil` when an error was reported (now or before the pass).
    static func plan(
        _ workflow: Workflow, registry: TaskRegistry, environment: [String: String], strict: Bool = false,
        checksFiles: Bool = true, diagnostics: inout Diagnostics
    ) -> Plan? {
        var context = ValidationContext(workflow: workflow, registry: registry, environment: environment)
        context.strict = strict
        context.checksFiles = checksFiles
        for validator in validators where validator.stage == .tasks {
            validator.validate(context, into: &diagnostics)
        }
        let planner = Planner(context: context)
        guard let expansion = planner.expand(diagnostics: &diagnostics) else { return nil }
        context.expansion = expansion
        let resolved = ResolvedNodes.Builder(
            taskCount: workflow.tasks.count, nodeCount: expansion.nodes.count, directory: workflow.directory)
        context.resolvedNodes = resolved
        for validator in validators where validator.stage == .nodes {
            validator.validate(context, into: &diagnostics)
        }
        guard !diagnostics.hasErrors else { return nil }
        return planner.plan(expansion, resolvedNodes: resolved.build(), diagnostics: &diagnostics)
    }
}
