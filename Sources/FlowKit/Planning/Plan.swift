import FlowBasics

/// One concrete node of a run: a task, or one item of an expanded task. Its edges are the plan's
/// (``Plan/dependencies(of:)``, ``Plan/dependents(of:)``).
///
/// Laid out small (a plan of a 100,000-item task holds one per item): the task and the item's position as 32-bit
/// numbers, after the fields that need a word's alignment.
package struct PlannedNode: Sendable {
    /// The node id: the task id, or `task[KEY]` for the item known by `KEY` (``ForEachItem/key``) — the name
    /// the store remembers the node by, whatever the item's position.
    package let id: String
    /// For a file item (a glob's match, a line of a file list): the folder `${item.rel}` is relative to.
    package var itemBase: String?
    /// ``taskIndex``, as stored.
    private let taskNumber: Int32
    /// ``itemIndex`` as stored: -1 for a node without an item.
    private let itemNumber: Int32
    /// The node's item and its index, if expanded.
    package let item: Value?

    /// The index of the node's task in ``Workflow/tasks``.
    package var taskIndex: Int { Int(taskNumber) }
    /// The item's position in its list, if expanded.
    package var itemIndex: Int? { itemNumber < 0 ? nil : Int(itemNumber) }

    /// A node; a plan has at most ``ForEachExpansion/maxItems`` nodes, so its indices fit 32 bits.
    package init(id: String, taskIndex: Int, item: Value?, itemIndex: Int?, itemBase: String? = nil) {
        self.id = id
        self.itemBase = itemBase
        taskNumber = Int32(taskIndex)
        itemNumber = itemIndex.map(Int32.init) ?? -1
        self.item = item
    }

    /// The item as a ``Scope`` sees it.
    var scopeItem: Scope.Item? { item.map { Scope.Item(value: $0, index: itemIndex ?? 0, base: itemBase) } }
}

/// A validated workflow expanded into its concrete node graph: what a run executes and a dry run prints.
///
/// The one representation of a run's work: per node its identity (its id and item) and its place in the graph (the
/// graph's compressed rows, with queue, priority and depth), per task what planning resolved once — type,
/// queue, input kind and, when they do not depend on the item, parameters. The runner reads all of it in
/// place and builds no table of its own.
public struct Plan: Sendable {
    /// The workflow the plan comes from.
    package let workflow: Workflow
    /// The task types.
    package let registry: TaskRegistry
    /// The environment `${env.*}` resolves against.
    package let environment: [String: String]
    /// The params after overrides, by name.
    package let params: [String: Value]
    /// The nodes, every one after its dependencies.
    package internal(set) var nodes: [PlannedNode]
    /// The edges between ``nodes``, and each node's queue, priority and depth.
    var graph: NodeGraph
    /// What each task reads, by task index (see ``ParameterValues/inputKind``).
    let inputKinds: [ProviderKind?]
    /// Each task's type, by task index: resolved when planning, so the runner never looks a name up.
    let taskTypes: [any TaskType]
    /// Each task's queue, by task index, as a position in ``Workflow/queues``.
    let queueIndices: [Int]
    /// Each task's parameters when every node of it has the same (none mentions `${item…}`), by task index:
    /// resolved and checked once, when planning; `nil` for tasks whose nodes resolve their own.
    let sharedParameters: [ParameterValues?]
    /// What the nodes of each other task share of their parameters, by task index: resolved once, when planning,
    /// so a node resolves only the values that mention its item; `nil` for a task planned without nodes.
    let parameterTemplates: [ParameterResolver.Template?]
    /// What validation resolved of the other tasks' nodes that the store's keys need (``ResolvedNodes``); `nil`
    /// where it kept none, and the store resolves each node's parameters again.
    var resolvedNodes: ResolvedNodes?
    /// The tasks whose items come from a list made at run time, by task index: validation never saw their nodes,
    /// so their write paths are held to their folders as each node resolves its parameters.
    var tasksOverRunTimeLists: Set<Int> = []
    /// The `--target`s the plan was cut down to, when it has lists made at run time: cut again once they are known.
    package internal(set) var targets: [String] = []

    /// The task a node comes from.
    package func task(of node: PlannedNode) -> TaskSpec { workflow.tasks[node.taskIndex] }

    /// The nodes a node depends on, by index in ``nodes``, in increasing order.
    package func dependencies(of index: Int) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(graph.dependencyCount(of: index))
        graph.forEachDependency(of: index) { result.append($0) }
        return result
    }

    /// The nodes that depend on a node, by index in ``nodes``, in increasing order.
    package func dependents(of index: Int) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(graph.dependentCount(of: index))
        graph.forEachDependent(of: index) { result.append($0) }
        return result
    }

    /// The scope a node's references resolve in.
    package func scope(of node: PlannedNode) -> Scope {
        Scope(params: params, environment: environment, item: node.scopeItem, group: task(of: node).group)
    }

    /// A node's parameters, resolved and defaulted. Planning checked them; a problem found now (a plan
    /// restricted or re-resolved against other values) is reported in `diagnostics`.
    func parameters(of node: PlannedNode, diagnostics: inout Diagnostics) -> ParameterValues {
        if let shared = sharedParameters[node.taskIndex] { return shared }
        let scope = scope(of: node)
        let values = resolve(node, in: scope, checkingTheWhole: true, diagnostics: &diagnostics)
        // Items of a list made at run time were not there when the plan was validated: held here to the folders
        // their write paths name, as validation holds the others.
        guard tasksOverRunTimeLists.contains(node.taskIndex) else { return values }
        for file in taskTypes[node.taskIndex].fileAccess(values).writes {
            guard let template = task(of: node).parameters[file.parameter]?.value else { continue }
            ItemPathContainment(template: template, in: scope)?.check(
                file.path, node: node.id, diagnostics: &diagnostics)
        }
        return values
    }

    /// A node's parameters, resolved and defaulted. Planning checked those of every node of the plan; where a
    /// problem must be reported, use the runner's view (``NodeContext/parameters``), which fails the node.
    package func parameters(of node: PlannedNode) -> ParameterValues {
        if let shared = sharedParameters[node.taskIndex] { return shared }
        // Checked when planning: what the checks of the values as a whole would say is known, and dropped here.
        var checkedWhenPlanning = Diagnostics()
        return resolve(node, in: scope(of: node), checkingTheWhole: false, diagnostics: &checkedWhenPlanning)
    }

    /// A node's parameters resolved from its task's template, or from what is written when planning made none.
    private func resolve(_ node: PlannedNode, in scope: Scope, checkingTheWhole: Bool, diagnostics: inout Diagnostics)
        -> ParameterValues
    {
        let resolver = ParameterResolver(
            task: task(of: node), type: taskTypes[node.taskIndex], inputKind: inputKinds[node.taskIndex])
        guard let template = parameterTemplates[node.taskIndex] else {
            return resolver.resolve(in: scope, checkingTheWhole: checkingTheWhole, diagnostics: &diagnostics)
        }
        return resolver.resolve(
            in: scope, from: template, checkingTheWhole: checkingTheWhole, diagnostics: &diagnostics)
    }

    /// The nodes in topological waves: wave 0 has no dependencies, wave n depends only on earlier waves.
    package func waves() -> [[Int]] {
        let levels = GraphAlgorithms.levels(
            order: nodes.indices, count: nodes.count, predecessors: graph.forEachDependency)
        var waves: [[Int]] = []
        for (index, level) in levels.enumerated() {
            if level == waves.count { waves.append([]) }
            waves[level].append(index)
        }
        return waves
    }

    /// The plan of some of its nodes: `nodes` (indices in plan order) with the edges between them. Edges to
    /// nodes left out are dropped — the caller knows those have run elsewhere, or asked for less.
    package func restricted(to nodes: [Int]) -> Plan {
        var copy = self
        copy.nodes = nodes.map { self.nodes[$0] }
        copy.graph = graph.restricted(to: nodes)
        copy.resolvedNodes = resolvedNodes?.restricted(to: nodes)
        return copy
    }
}
