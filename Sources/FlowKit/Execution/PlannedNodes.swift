import Foundation
import Logging

/// What every ``NodeContext`` of a run reads its fields from: the plan and the run options, shared by all of
/// them, so the runner makes a context per attempt without copying any field.
final class PlannedNodes: Sendable {
    let plan: Plan
    let optimize: Bool
    let previews: Bool
    let logger: Logger
    /// The files this run's nodes have written (and those of the runs that share the ledger).
    let outputs: OutputLedger
    /// What takes the standard output of the nodes that stream it (``RunOptions/outputChunks``).
    let outputChunks: [Int: @Sendable (Data) -> Void]

    init(plan: Plan, options: RunOptions) {
        self.plan = plan
        optimize = options.optimize
        previews = options.previews
        logger = options.logger
        outputs = options.sharedOutputs ?? OutputLedger()
        outputChunks = options.outputChunks
    }

    /// The task a node comes from.
    func task(of index: Int) -> TaskSpec {
        plan.task(of: plan.nodes[index])
    }

    /// A node's parameters; a node whose parameters depend on its item resolves them on every call, so the
    /// runner gives such nodes contexts with their fields already made (see ``Plan/sharedParameters``).
    func parameters(of index: Int) -> ParameterValues {
        plan.parameters(of: plan.nodes[index])
    }

    /// The consumers of a node, each able to look further down.
    func consumers(of index: Int) -> [NodeContext.Consumer] {
        plan.consumers(of: index)
    }

    /// Every field of a node's context, made now, and the failure of the node when its parameters do not
    /// resolve (they depend on its item, and planning saw other items).
    func fields(of index: Int, attempt: Int) -> (NodeContext.Fields, failure: NodeFailure?) {
        let taskIndex = plan.nodes[index].taskIndex
        var diagnostics = Diagnostics()
        let parameters = plan.parameters(of: plan.nodes[index], diagnostics: &diagnostics)
        // Field by field, in place: copying a whole `PlannedNode` or `TaskSpec` costs a retain per field.
        let fields = NodeContext.Fields(
            nodeID: plan.nodes[index].id, taskID: plan.workflow.tasks[taskIndex].id.value,
            typeName: plan.workflow.tasks[taskIndex].type.value, queueName: plan.workflow.tasks[taskIndex].queueName,
            itemIndex: plan.nodes[index].itemIndex, item: plan.nodes[index].item, parameters: parameters,
            inputTaskID: plan.workflow.tasks[taskIndex].input?.value, attempt: attempt,
            workflowDirectory: plan.workflow.directory, location: plan.workflow.tasks[taskIndex].location,
            consumers: { self.consumers(of: index) }, optimize: optimize, previews: previews, outputs: outputs,
            logger: logger, outputChunks: outputChunks[index])
        return (fields, diagnostics.hasErrors ? NodeFailure(invalidParameters: diagnostics, node: fields.nodeID) : nil)
    }
}

extension Plan {
    /// The consumers of a node, each able to look further down: what ``NodeContext/consumers`` gives the
    /// operation, and what the store asks a task type about before the run.
    func consumers(of index: Int) -> [NodeContext.Consumer] {
        dependents(of: index).map { dependent in
            let node = nodes[dependent]
            return NodeContext.Consumer(
                type: taskTypes[node.taskIndex], parameters: parameters(of: node),
                consumers: { self.consumers(of: dependent) })
        }
    }
}
