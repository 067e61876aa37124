import FlowBasics
import OrderedCollections

/// Expands a workflow into its node graph — `forEach` lists into per-item nodes, element-wise zipping of
/// downstream tasks, `gather` fan-in — and, once ``ValidationPass`` has found nothing wrong, makes the plan.
struct Planner {
    let context: ValidationContext

    /// A task's expansion: the list its nodes iterate, and which `forEach` task the list comes from.
    private struct Domain {
        var origin: String
        var items: [ForEachItem]
        /// For a list made at run time, the task index of its producer.
        var producer: Int?
        /// Whether the list is made at run time and not known yet: a gather over it waits for its producer.
        var awaitsProducer = false
    }

    /// Expands every task into its nodes, reporting the `forEach` lists that cannot be read or zipped.
    /// - Returns: The nodes and their graph, or `nil` when the tasks have a cycle or expand to too many nodes.
    func expand(diagnostics: inout Diagnostics) -> Expansion? {
        let workflow = context.workflow
        guard let order = context.order else { return nil }
        let params = workflow.params.reduce(into: [String: Value]()) { $0[$1.key] = $1.value.value }
        let baseScope = Scope(params: params, environment: context.environment)

        var domains = [Domain?](repeating: nil, count: workflow.tasks.count)
        var firstNode = [Int](repeating: 0, count: workflow.tasks.count)
        var nodeCount = [Int](repeating: 0, count: workflow.tasks.count)
        var nodes: [PlannedNode] = []
        // A task's queue, priority and depth are every one of its nodes': the graph keeps them per node, where
        // the runner reads them. An undeclared queue has been reported (QueueValidator); no plan is made then.
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
            // Twofold at least, as the array would grow: a workflow of many small tasks is not copied once per task.
            if nodes.capacity < nodes.count + nodeCount[taskIndex] {
                nodes.reserveCapacity(max(nodes.count + nodeCount[taskIndex], 2 * nodes.capacity))
            }
            var dependencies: [Int] = []
            var waitsForList = false
            for index in 0..<nodeCount[taskIndex] {
                dependencies.removeAll(keepingCapacity: true)
                for upstream in context.upstream[taskIndex] {
                    let start = firstNode[upstream]
                    let count = nodeCount[upstream]
                    if task.gather, domains[upstream]?.awaitsProducer == true,
                        let producer = domains[upstream]?.producer
                    {
                        // A gather over a list not known yet waits for it; once known, the items are its inputs.
                        dependencies.append(firstNode[producer])
                        waitsForList = true
                    }
                    if items != nil, domains[upstream] != nil {
                        dependencies.append(start + index)  // element-wise: item i reads item i
                    } else {
                        dependencies.append(contentsOf: start..<(start + count))  // one node, or gather: all
                    }
                }
                // The producer may also be a dependency of its own, or feed several of the gathered tasks.
                dependencies = waitsForList ? Array(Set(dependencies)).sorted() : dependencies.sorted()
                graph.append(
                    dependencies: dependencies, queue: Int32(queues[taskIndex] ?? 0),
                    priority: priorities[taskIndex], depth: Int32(depths[taskIndex]))
                nodes.append(
                    PlannedNode(
                        id: items.map { "\(task.id.value)[\($0[index].key)]" } ?? task.id.value,
                        taskIndex: taskIndex, item: items?[index].value, itemIndex: items == nil ? nil : index,
                        itemBase: items?[index].base))
            }
        }
        return Expansion(
            nodes: nodes, graph: graph.build(), params: params,
            inputKinds: workflow.tasks.map { KindValidator.inputKind(of: $0, context) })
    }

    /// The plan of a workflow the pass found nothing wrong with: every task's type and queue resolved once, so a
    /// plan holds no name the runner could fail to find, and the parameters its nodes share resolved once.
    /// - Parameter resolvedNodes: What validation resolved of each node for the store's keys.
    func plan(_ expansion: Expansion, resolvedNodes: ResolvedNodes? = nil, diagnostics: inout Diagnostics) -> Plan? {
        let workflow = context.workflow
        var types: [any TaskType] = []
        var queueIndices: [Int] = []
        for task in workflow.tasks {
            guard let type = context.type(of: task), let queue = workflow.queues.index(forKey: task.queueName) else {
                diagnostics.error(
                    "task '\(task.id.value)' has no registered type or no declared queue", at: task.id.location)
                return nil
            }
            types.append(type)
            queueIndices.append(queue)
        }
        var sharedParameters = [ParameterValues?](repeating: nil, count: workflow.tasks.count)
        var parameterTemplates = [ParameterResolver.Template?](repeating: nil, count: workflow.tasks.count)
        // Asked once per task: scanning a task's values for `${item…}` costs as much as resolving them.
        let usesItem = workflow.tasks.map(\.usesItem)
        // By index, reading only each node's task: a million-node plan is walked without copying its nodes.
        for index in expansion.nodes.indices {
            let taskIndex = expansion.nodes[index].taskIndex
            guard sharedParameters[taskIndex] == nil, parameterTemplates[taskIndex] == nil else { continue }
            let resolver = ParameterResolver(
                task: workflow.tasks[taskIndex], type: types[taskIndex], inputKind: expansion.inputKinds[taskIndex])
            let scope = expansion.scope(of: expansion.nodes[index], in: context)
            if usesItem[taskIndex] {
                parameterTemplates[taskIndex] = resolver.template(in: scope, diagnostics: &diagnostics)
            } else {
                sharedParameters[taskIndex] = resolver.resolve(in: scope, diagnostics: &diagnostics)
            }
        }
        return Plan(
            workflow: workflow, registry: context.registry, environment: context.environment,
            params: expansion.params, nodes: expansion.nodes, graph: expansion.graph, inputKinds: expansion.inputKinds,
            taskTypes: types, queueIndices: queueIndices, sharedParameters: sharedParameters,
            parameterTemplates: parameterTemplates,
            resolvedNodes: resolvedNodes,
            tasksOverRunTimeLists: workflow.tasks.indices.reduce(into: []) { over, index in
                if workflow.tasks[index].forEach?.producer != nil { over.formUnion(workflow.tasksOverList(of: index)) }
            })
    }

    private func domain(of task: TaskSpec, domains: [Domain?], scope: Scope, diagnostics: inout Diagnostics) -> Domain?
    {
        var own: Domain?
        if let spec = task.forEach {
            guard !task.gather else { return nil }  // reported by GatherValidator
            if spec.producer != nil {
                // Not known until the producer runs: the session plans again with what it printed (RunTimeList).
                let index = context.taskIndex[task.id.value] ?? 0
                own = Domain(
                    origin: task.id.value, items: context.runTimeItems[index] ?? [],
                    producer: spec.producer.flatMap { context.taskIndex[$0.value] },
                    awaitsProducer: context.runTimeItems[index] == nil)
            } else if let items = ForEachExpansion.items(
                of: spec, task: task, scope: scope, directory: context.workflow.directory,
                strict: context.strict, diagnostics: &diagnostics)
            {
                own = Domain(origin: task.id.value, items: items)
            } else {
                return nil
            }
        }
        let inherited = task.dependsOn.compactMap { entry -> (Domain, Located<String>)? in
            guard let index = context.taskIndex[entry.value], let domain = domains[index] else { return nil }
            return (domain, entry)
        }
        if task.gather { return nil }  // once over every item; GatherValidator checks it has some
        var chosen = own
        for (domain, entry) in inherited {
            guard let current = chosen else {
                chosen = domain
                continue
            }
            if current.origin != domain.origin && (current.producer != nil || domain.producer != nil) {
                diagnostics.error(
                    "task '\(task.id.value)' zips the list '\(current.origin)' with '\(domain.origin)', and one is made at run time",
                    at: entry.location,
                    hint: "a list made at run time is zipped with nothing; add 'gather: true' to collect it instead")
                return nil
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
}
