import OrderedCollections

/// Expands a validated workflow into its node graph: `forEach` lists into per-item nodes, element-wise
/// zipping of downstream tasks, `gather` fan-in, and each node's parameters checked.
struct Planner {
    let context: ValidationContext

    /// A task's expansion: the list its nodes iterate, and which `forEach` task the list comes from.
    private struct Domain {
        var origin: String
        var items: [Value]
    }

    func plan(diagnostics: inout Diagnostics) -> Plan? {
        let workflow = context.workflow
        guard let order = context.order else { return nil }
        let params = workflow.params.reduce(into: [String: Value]()) { $0[$1.key] = $1.value.value }
        let baseScope = Scope(params: params, environment: context.environment)

        var domains = [Domain?](repeating: nil, count: workflow.tasks.count)
        var firstNode = [Int](repeating: 0, count: workflow.tasks.count)
        var nodeCount = [Int](repeating: 0, count: workflow.tasks.count)
        var nodes: [PlannedNode] = []
        // A task's queue, priority and depth are every one of its nodes': the graph keeps them per node, where
        // the runner reads them. An undeclared queue has been reported; no plan is made then.
        let queues = workflow.tasks.map { workflow.queues.index(forKey: $0.queueName) }
        let priorities = workflow.tasks.map { Int8(PriorityName.allCases.firstIndex(of: $0.priority) ?? 2) }
        let depths = GraphAlgorithms.levels(order: order, count: workflow.tasks.count) { task, body in
            context.upstream[task].forEach(body)
        }
        var graph = NodeGraph.Builder()

        for taskIndex in order {
            let task = workflow.tasks[taskIndex]
            var scope = baseScope
            scope.group = task.group
            let domain = self.domain(of: task, domains: domains, scope: scope, diagnostics: &diagnostics)
            domains[taskIndex] = domain
            firstNode[taskIndex] = nodes.count
            let items = domain?.items
            nodeCount[taskIndex] = items?.count ?? 1
            if nodes.count + nodeCount[taskIndex] > ForEachExpansion.maxItems {
                diagnostics.error(
                    "the workflow expands to more than \(ForEachExpansion.maxItems) nodes", at: task.id.location)
                return nil
            }
            var dependencies: [Int] = []
            for index in 0..<nodeCount[taskIndex] {
                dependencies.removeAll(keepingCapacity: true)
                for upstream in context.upstream[taskIndex] {
                    let start = firstNode[upstream]
                    let count = nodeCount[upstream]
                    if items != nil, domains[upstream] != nil {
                        dependencies.append(start + index)  // element-wise: item i reads item i
                    } else {
                        dependencies.append(contentsOf: start..<(start + count))  // one node, or gather: all
                    }
                }
                dependencies.sort()
                graph.append(
                    dependencies: dependencies, queue: Int32(queues[taskIndex] ?? 0),
                    priority: priorities[taskIndex], depth: Int32(depths[taskIndex]))
                nodes.append(
                    PlannedNode(
                        id: items == nil ? task.id.value : "\(task.id.value)[\(index)]",
                        taskIndex: taskIndex, item: items?[index], itemIndex: items == nil ? nil : index))
            }
        }
        let inputKinds = workflow.tasks.map { KindValidator.inputKind(of: $0, context) }
        let sharedParameters = checkParameters(
            of: nodes, inputKinds: inputKinds, params: params, diagnostics: &diagnostics)
        // Every task's type and queue are resolved here, once: a plan holds no name the runner could fail to
        // find. The decoder and the queue validator have reported whatever does not resolve.
        var types: [any TaskType] = []
        var queueIndices: [Int] = []
        for (task, queue) in zip(workflow.tasks, queues) {
            guard let type = context.type(of: task), let queue else {
                if !diagnostics.hasErrors {
                    diagnostics.error(
                        "task '\(task.id.value)' has no registered type or no declared queue", at: task.id.location)
                }
                return nil
            }
            types.append(type)
            queueIndices.append(queue)
        }
        return Plan(
            workflow: workflow, registry: context.registry, environment: context.environment, params: params,
            nodes: nodes, graph: graph.build(), inputKinds: inputKinds, taskTypes: types, queueIndices: queueIndices,
            sharedParameters: sharedParameters)
    }

    private func domain(of task: TaskSpec, domains: [Domain?], scope: Scope, diagnostics: inout Diagnostics) -> Domain?
    {
        var own: Domain?
        if let spec = task.forEach {
            if task.gather {
                diagnostics.error(
                    "task '\(task.id.value)' has both 'forEach' and 'gather: true'", at: spec.location,
                    hint: "a gather task runs once over its dependencies' items; drop one of the two")
                return nil
            }
            guard
                let items = ForEachExpansion.items(
                    of: spec, task: task, scope: scope, directory: context.workflow.directory,
                    diagnostics: &diagnostics)
            else { return nil }
            own = Domain(origin: task.id.value, items: items)
        }
        let inherited = task.dependsOn.compactMap { entry -> (Domain, Located<String>)? in
            guard let index = context.taskIndex[entry.value], let domain = domains[index] else { return nil }
            return (domain, entry)
        }
        if task.gather {
            if inherited.isEmpty {
                diagnostics.error(
                    "task '\(task.id.value)' has 'gather: true' but depends on no forEach task", at: task.id.location,
                    hint:
                        "gather collects the items of an expanded dependency; remove 'gather' or depend on a forEach task"
                )
            }
            return nil
        }
        var chosen = own
        for (domain, entry) in inherited {
            guard let current = chosen else {
                chosen = domain
                continue
            }
            if current.origin != domain.origin && current.items.count != domain.items.count {
                diagnostics.error(
                    "task '\(task.id.value)' zips forEach lists of different lengths: '\(current.origin)' has \(current.items.count) items, '\(domain.origin)' has \(domain.items.count)",
                    at: entry.location,
                    hint: "give both lists the same number of items, or add 'gather: true' to collect them instead")
                return nil
            }
        }
        return chosen
    }

    /// Resolves and checks every node's parameters, and the files they name. Tasks whose values do not mention
    /// `${item…}` are checked once; the others per node, with repeated messages folded by ``Diagnostics``.
    /// - Returns: The parameters of each task checked once, by task index, for every node of it to share.
    private func checkParameters(
        of nodes: [PlannedNode], inputKinds: [ProviderKind?], params: [String: Value], diagnostics: inout Diagnostics
    ) -> [ParameterValues?] {
        // Tasks whose values do not mention the item, resolved once; those of them that name files, with them.
        var shared = [ParameterValues?](repeating: nil, count: context.workflow.tasks.count)
        var sharedFiles: [Int: (access: FileAccess, values: ParameterValues)] = [:]
        var files = FileCollisionValidator(nodes: nodes, workflow: context.workflow)
        for (index, node) in nodes.enumerated() {
            // Every node of such a task writes the same files: recorded per node, so a forEach task writing one
            // fixed path collides with itself.
            if shared[node.taskIndex] != nil {
                if let (access, values) = sharedFiles[node.taskIndex] {
                    files.record(access, of: index, locations: values, diagnostics: &diagnostics)
                }
                continue
            }
            let task = context.workflow.tasks[node.taskIndex]
            guard let type = context.type(of: task) else { continue }
            let scope = Scope(
                params: params, environment: context.environment, item: node.scopeItem, group: task.group)
            let values = ParameterValidator(task: task, type: type, inputKind: inputKinds[node.taskIndex])
                .resolve(in: scope, diagnostics: &diagnostics)
            let access = type.fileAccess(values)
            if !task.usesItem {
                shared[node.taskIndex] = values
                if access != .none { sharedFiles[node.taskIndex] = (access, values) }
            }
            if access != .none { files.record(access, of: index, locations: values, diagnostics: &diagnostics) }
        }
        files.finish(diagnostics: &diagnostics)
        return shared
    }
}
