/// Resolves and checks every node's parameters — types, ranges, constraints, then the task type's own
/// ``TaskType/validate(_:into:)`` — and the files they name (``FileCollisionValidator``, then
/// ``RequiredFileValidator``). Tasks whose values do
/// not mention `${item…}` are checked once; the others per node, with repeated messages folded by
/// ``Diagnostics``.
struct NodeParameterValidator: WorkflowValidator {
    var stage: ValidationStage { .nodes }

    /// What the nodes of one task share while they are checked, made with its first node: held by reference, and
    /// read in place by its methods, so a node copies neither the task nor its resolver.
    private final class TaskNodes {
        let type: any TaskType
        let resolver: ParameterResolver
        let template: ParameterResolver.Template
        private var planner: TaskUsePlanner
        /// The folder each written path holds its items to, by parameter, found with the first node writing it.
        private var containments: [String: ItemPathContainment?] = [:]

        init(type: any TaskType, resolver: ParameterResolver, template: ParameterResolver.Template, directory: String?)
        {
            self.type = type
            self.resolver = resolver
            self.template = template
            planner = TaskUsePlanner(type: type, task: resolver.task.id.value, directory: directory)
        }

        /// One node's values, resolved in `scope` (its item's).
        func values(in scope: Scope, diagnostics: inout Diagnostics) -> ParameterValues {
            resolver.resolve(in: scope, from: template, checkingTheWhole: false, diagnostics: &diagnostics)
        }

        /// What one node's values say it does with files.
        func use(of values: ParameterValues, diagnostics: inout Diagnostics) -> PlannedUse {
            planner.use(of: values, isComplete: template.isComplete(values), diagnostics: &diagnostics)
        }

        /// Checks that the files a node writes stay in the folders their paths name before the item.
        func checkContainment(
            of writes: [FileAccess.File], node: String, in scope: Scope, diagnostics: inout Diagnostics
        ) {
            for file in writes {
                let containment: ItemPathContainment?
                if let known = containments[file.parameter] {
                    containment = known
                } else {
                    guard let written = resolver.task.parameters[file.parameter]?.value else { continue }
                    containment = ItemPathContainment(template: written, in: scope)
                    containments[file.parameter] = containment
                }
                containment?.check(file.path, node: node, diagnostics: &diagnostics)
            }
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
        var files = FileCollisionValidator(nodes: expansion.nodes, graph: expansion.graph, workflow: context.workflow)
        let parsed = Resolver.ParsedTexts()
        var taskNodes = [TaskNodes?](repeating: nil, count: tasks.count)
        var nodeCounts = [Int](repeating: 0, count: tasks.count)
        for node in expansion.nodes { nodeCounts[node.taskIndex] += 1 }
        // One scope for every node, given each node's item and group in turn: the params and environment are
        // not retained and released again for each of 100,000 nodes.
        var scope = Scope(params: expansion.params, environment: context.environment)
        let groups = tasks.map(\.group)
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
            scope.group = groups[taskIndex]
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
                    type: type, resolver: resolver, template: resolver.template(in: scope, diagnostics: &diagnostics),
                    directory: usesItem[taskIndex] ? context.workflow.directory : nil)
                taskNodes[taskIndex] = shared
                isFirstOfTask = true
            }
            let values = shared.values(in: scope, diagnostics: &diagnostics)
            let use = shared.use(of: values, diagnostics: &diagnostics)
            let access = use.access
            // The task's other nodes use as many files.
            if isFirstOfTask { files.reserve(nodeCounts[taskIndex], like: access) }
            if usesItem[taskIndex] {
                if isFirstOfTask {
                    context.resolvedNodes?.start(taskIndex, task: tasks[taskIndex], type: shared.type, values: values)
                }
                context.resolvedNodes?.record(node: index, taskIndex: taskIndex, values: values, use: use)
            } else {
                checked[taskIndex] = true
                if access != .none { sharedFiles[taskIndex] = access }
            }
            if !access.writes.isEmpty {
                shared.checkContainment(
                    of: access.writes, node: expansion.nodes[index].id, in: scope, diagnostics: &diagnostics)
            }
            if access != .none { files.record(access, of: index, diagnostics: &diagnostics) }
        }
        files.finish(diagnostics: &diagnostics)
        if context.checksFiles {
            RequiredFileValidator(context: context).check(
                sharedReads: sharedFiles, files: files, diagnostics: &diagnostics)
        }
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
