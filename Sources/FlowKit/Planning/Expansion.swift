/// A workflow's tasks expanded into nodes: what the node checks of ``ValidationPass`` read, and what the plan
/// is made of once they pass.
struct Expansion: Sendable {
    /// The nodes, every one after its dependencies.
    var nodes: [PlannedNode]
    /// The edges between them, with each node's queue, priority and depth.
    var graph: NodeGraph
    /// The params after overrides, by name.
    var params: [String: Value]
    /// What each task reads, by task index (see ``ParameterValues/inputKind``).
    var inputKinds: [ProviderKind?]

    /// The scope a node's references resolve in.
    func scope(of node: PlannedNode, in context: ValidationContext) -> Scope {
        Scope(
            params: params, environment: context.environment, item: node.scopeItem,
            group: context.workflow.tasks[node.taskIndex].group)
    }
}
