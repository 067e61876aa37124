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

    /// What the nodes of one task share while they are checked, made with its first node: held by reference, so
    /// each node reads it without copying the task.
    private final class TaskNodes {
        let task: TaskSpec
        let type: any TaskType
        let resolver: ParameterResolver
        let template: ParameterResolver.Template
        var planner: TaskUsePlanner

        init(
            task: TaskSpec, type: any TaskType, resolver: ParameterResolver, template: ParameterResolver.Template,
            planner: TaskUsePlanner
        ) {
            self.task = task
            self.type = type
            self.resolver = resolver
            self.template = template
            self.planner = planner
        }
    }

    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        guard let expansion = context.expansion else { return }
        let tasks = context.workflow.tasks
        let usesItem = tasks.map(\.usesItem)
        var checked = [Bool](repeating: false, count: tasks.count)
        var hasNodes = [Bool](repeating: false, count: tasks.count)
        // Tasks whose values do not mention the item that name files, with them.
        var sharedFiles: [Int: FileAccess] = [:]
        var files = FileCollisionValidator(nodes: expansion.nodes, workflow: context.workflow)
        let parsed = Resolver.ParsedTexts()
        var taskNodes = [TaskNodes?](repeating: nil, count: tasks.count)
        var nodeCounts = [Int](repeating: 0, count: tasks.count)
        for node in expansion.nodes { nodeCounts[node.taskIndex] += 1 }
        // The folder each written path holds its items to, found once per task and parameter.
        var containments: [WrittenParameter: ItemPathContainment?] = [:]
        // One scope for every node, given each node's item and group in turn: the params and environment are
        // not retained and released again for each of 100,000 nodes.
        var scope = Scope(params: expansion.params, environment: context.environment)
        // By index, reading each node in place: a 100,000-item plan is walked without copying its nodes.
        for index in expansion.nodes.indices {
            let taskIndex = expansion.nodes[index].taskIndex
            hasNodes[taskIndex] = true
            // Every node of such a task writes the same files: recorded per node, so a forEach task writing one
            // fixed path collides with itself.
            if checked[taskIndex] {
                if let access = sharedFiles[taskIndex] {
                    files.record(access, of: index, diagnostics: &diagnostics)
                }
                continue
            }
            scope.item = expansion.nodes[index].scopeItem
            scope.group = tasks[taskIndex].group
            let shared: TaskNodes
            let isFirstOfTask: Bool
            if let known = taskNodes[taskIndex] {
                shared = known
                isFirstOfTask = false
            } else {
                let task = tasks[taskIndex]
                guard let type = context.type(of: task) else { continue }
                let resolver = ParameterResolver(
                    task: task, type: type, inputKind: expansion.inputKinds[taskIndex], parsed: parsed)
                shared = TaskNodes(
                    task: task, type: type, resolver: resolver,
                    template: resolver.template(in: scope, diagnostics: &diagnostics),
                    planner: TaskUsePlanner(
                        type: type, task: task.id.value,
                        directory: usesItem[taskIndex] ? context.workflow.directory : nil))
                taskNodes[taskIndex] = shared
                isFirstOfTask = true
            }
            let values = shared.resolver.resolve(
                in: scope, from: shared.template, checkingTheWhole: false, diagnostics: &diagnostics)
            let use = shared.planner.use(
                of: values, isComplete: shared.template.isComplete(values), diagnostics: &diagnostics)
            let access = use.access
            // The task's other nodes use as many files.
            if isFirstOfTask { files.reserve(nodeCounts[taskIndex], like: access) }
            if usesItem[taskIndex] {
                context.resolvedNodes?.record(
                    node: index, taskIndex: taskIndex, task: shared.task, type: shared.type, values: values, use: use)
            } else {
                checked[taskIndex] = true
                if access != .none { sharedFiles[taskIndex] = access }
            }
            for file in access.writes {
                guard let template = shared.task.parameters[file.parameter]?.value else { continue }
                let key = WrittenParameter(task: taskIndex, parameter: file.parameter)
                let containment: ItemPathContainment?
                if let known = containments[key] {
                    containment = known
                } else {
                    containment = ItemPathContainment(template: template, in: scope)
                    containments[key] = containment
                }
                containment?.check(file.path, node: expansion.nodes[index].id, diagnostics: &diagnostics)
            }
            if access != .none { files.record(access, of: index, diagnostics: &diagnostics) }
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
