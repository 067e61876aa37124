/// Resolves and checks every node's parameters — types, ranges, constraints, then the task type's own
/// ``TaskType/validate(_:into:)`` — and the files they name (``FileCollisionValidator``). Tasks whose values do
/// not mention `${item…}` are checked once; the others per node, with repeated messages folded by
/// ``Diagnostics``.
struct NodeParameterValidator: WorkflowValidator {
    var stage: ValidationStage { .nodes }

    /// A parameter of a task that names a file the task writes.
    private struct WrittenParameter: Hashable {
        let task: Int
        let parameter: String
    }

    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        guard let expansion = context.expansion else { return }
        let tasks = context.workflow.tasks
        let usesItem = tasks.map(\.usesItem)
        var checked = [Bool](repeating: false, count: tasks.count)
        var hasNodes = [Bool](repeating: false, count: tasks.count)
        // Tasks whose values do not mention the item that name files, with them.
        var sharedFiles: [Int: (access: FileAccess, values: ParameterValues)] = [:]
        var files = FileCollisionValidator(nodes: expansion.nodes, workflow: context.workflow)
        let parsed = Resolver.ParsedTexts()
        // What each task's nodes share, resolved and checked with its first node.
        var templates = [ParameterResolver.Template?](repeating: nil, count: tasks.count)
        var nodeCounts = [Int](repeating: 0, count: tasks.count)
        for node in expansion.nodes { nodeCounts[node.taskIndex] += 1 }
        // The folder each written path holds its items to, found once per task and parameter.
        var containments: [WrittenParameter: ItemPathContainment?] = [:]
        for (index, node) in expansion.nodes.enumerated() {
            hasNodes[node.taskIndex] = true
            // Every node of such a task writes the same files: recorded per node, so a forEach task writing one
            // fixed path collides with itself.
            if checked[node.taskIndex] {
                if let (access, values) = sharedFiles[node.taskIndex] {
                    files.record(access, of: index, locations: values, diagnostics: &diagnostics)
                }
                continue
            }
            let task = tasks[node.taskIndex]
            guard let type = context.type(of: task) else { continue }
            let scope = expansion.scope(of: node, in: context)
            let resolver = ParameterResolver(
                task: task, type: type, inputKind: expansion.inputKinds[node.taskIndex], parsed: parsed)
            let template: ParameterResolver.Template
            let isFirstOfTask: Bool
            if let known = templates[node.taskIndex] {
                template = known
                isFirstOfTask = false
            } else {
                template = resolver.template(in: scope, diagnostics: &diagnostics)
                templates[node.taskIndex] = template
                isFirstOfTask = true
            }
            let values = resolver.resolve(in: scope, from: template, diagnostics: &diagnostics)
            let access = type.fileAccess(values)
            // The task's other nodes use as many files.
            if isFirstOfTask { files.reserve(nodeCounts[node.taskIndex], like: access) }
            if usesItem[node.taskIndex] {
                context.resolvedNodes?.record(
                    node: index, taskIndex: node.taskIndex, task: task, type: type, values: values)
            } else {
                checked[node.taskIndex] = true
                if access != .none { sharedFiles[node.taskIndex] = (access, values) }
            }
            for file in access.writes {
                guard let template = task.parameters[file.parameter]?.value else { continue }
                let key = WrittenParameter(task: node.taskIndex, parameter: file.parameter)
                let containment: ItemPathContainment?
                if let known = containments[key] {
                    containment = known
                } else {
                    containment = ItemPathContainment(template: template, in: scope)
                    containments[key] = containment
                }
                containment?.check(file.path, node: node.id, diagnostics: &diagnostics)
            }
            if access != .none { files.record(access, of: index, locations: values, diagnostics: &diagnostics) }
        }
        files.finish(diagnostics: &diagnostics)
        // A task over a list not known yet (made at run time) has no nodes: what does not depend on its item is
        // checked now, before the producer runs.
        for (taskIndex, task) in tasks.enumerated() where !usesItem[taskIndex] && !hasNodes[taskIndex] {
            guard let type = context.type(of: task) else { continue }
            let scope = Scope(params: expansion.params, environment: context.environment, group: task.group)
            _ = ParameterResolver(task: task, type: type, inputKind: expansion.inputKinds[taskIndex])
                .resolve(in: scope, diagnostics: &diagnostics)
        }
    }
}
