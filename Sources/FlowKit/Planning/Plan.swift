/// One concrete node of a run: a task, or one item of an expanded task.
package struct PlannedNode: Sendable {
    /// The node id: the task id, or `task[i]` for item `i` of an expanded task.
    package let id: String
    /// The index of the node's task in ``Workflow/tasks``.
    package let taskIndex: Int
    /// The node's item and its index, if expanded.
    package let item: Value?
    /// The item's position in its list, if expanded.
    package let itemIndex: Int?
    /// The nodes this one depends on, by index in ``Plan/nodes``.
    package internal(set) var dependencies: [Int]
    /// The nodes that depend on this one.
    package internal(set) var dependents: [Int]

    /// The item as a ``Scope`` sees it: the value and its index.
    var scopeItem: (value: Value, index: Int)? { item.map { ($0, itemIndex ?? 0) } }
}

/// A validated workflow expanded into its concrete node graph: what a run executes and a dry run prints.
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
    /// What each task reads, by task index (see ``ParameterValues/inputKind``).
    let inputKinds: [ProviderKind?]
    /// Each task's type, by task index: resolved when planning, so the runner never looks a name up.
    let taskTypes: [any TaskType]
    /// Each task's queue, by task index, as a position in ``Workflow/queues``.
    let queueIndices: [Int]

    /// The task a node comes from.
    package func task(of node: PlannedNode) -> TaskSpec { workflow.tasks[node.taskIndex] }

    /// The scope a node's references resolve in.
    package func scope(of node: PlannedNode) -> Scope {
        Scope(params: params, environment: environment, item: node.scopeItem, group: task(of: node).group)
    }

    /// A node's parameters, resolved and defaulted. Planning checked them, so no diagnostics are expected.
    package func parameters(of node: PlannedNode) -> ParameterValues {
        var ignored = Diagnostics()
        return ParameterValidator(
            task: task(of: node), type: taskTypes[node.taskIndex], inputKind: inputKinds[node.taskIndex]
        )
        .resolve(in: scope(of: node), diagnostics: &ignored)
    }

    /// The nodes in topological waves: wave 0 has no dependencies, wave n depends only on earlier waves.
    package func waves() -> [[Int]] {
        var level = [Int](repeating: 0, count: nodes.count)
        var waves: [[Int]] = []
        for (index, node) in nodes.enumerated() {
            let wave = node.dependencies.map { level[$0] + 1 }.max() ?? 0
            level[index] = wave
            if wave == waves.count { waves.append([]) }
            waves[wave].append(index)
        }
        return waves
    }
}
