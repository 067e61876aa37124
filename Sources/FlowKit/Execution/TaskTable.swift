import Foundation
import OrderedCollections

/// What the runner looks up per task rather than per node: each task's type, `OperationQueue` and, when
/// they do not depend on the item, its parameters. Kept as arrays indexed by task, built once per run
/// without an allocation per task; everything else about a task is read in place from its `TaskSpec`.
struct TaskTable: Sendable {
    /// Each task's type, as an index into `types`.
    private let typeIndex: [Int32]
    private let types: [any TaskType]
    /// Each task's queue, as an index into the workflow's queues (and `operationQueues`).
    let queueIndex: [Int]
    private let operationQueues: [OperationQueue]
    /// Each task's parameters as an index into `sharedParameters`, or -1 when they differ per node.
    private let parametersIndex: [Int32]
    private let sharedParameters: [ParameterValues]

    /// - Parameter operationQueues: One queue per entry of the workflow's `queues`, in order.
    init(plan: Plan, operationQueues: [OperationQueue]) {
        let specs = plan.workflow.tasks
        var firstNode = [Int](repeating: -1, count: specs.count)
        for index in plan.nodes.indices where firstNode[plan.nodes[index].taskIndex] < 0 {
            firstNode[plan.nodes[index].taskIndex] = index
        }
        var types: [any TaskType] = []
        var typePosition: [String: (index: Int32, hasDefaults: Bool)] = [:]
        // Index 0: the parameters of every task that has none and whose type has no defaults.
        var sharedParameters = [ParameterValues()]
        var typeIndex: [Int32] = []
        var parametersIndex: [Int32] = []
        typeIndex.reserveCapacity(specs.count)
        parametersIndex.reserveCapacity(specs.count)
        // Neighbouring tasks usually share a type: comparing with the last name is cheaper than hashing it
        // again. Fields are read in place (copying a whole `TaskSpec` costs a retain per field).
        var lastType: (name: String, index: Int32, hasDefaults: Bool)?
        for task in specs.indices {
            let typeName = specs[task].type.value
            let type: (index: Int32, hasDefaults: Bool)
            if let last = lastType, last.name == typeName {
                type = (last.index, last.hasDefaults)
            } else if let known = typePosition[typeName] {
                type = known
            } else {
                let taskType = plan.taskTypes[task]
                type = (Int32(types.count), taskType.parameters.contains { $0.defaultValue != nil })
                typePosition[typeName] = type
                types.append(taskType)
            }
            lastType = (typeName, type.index, type.hasDefaults)
            typeIndex.append(type.index)

            if specs[task].parameters.isEmpty && !type.hasDefaults {
                parametersIndex.append(0)
            } else if firstNode[task] >= 0 && !specs[task].usesItem {
                parametersIndex.append(Int32(sharedParameters.count))
                sharedParameters.append(plan.parameters(of: plan.nodes[firstNode[task]]))
            } else {
                parametersIndex.append(-1)
            }
        }
        self.typeIndex = typeIndex
        self.types = types
        self.queueIndex = plan.queueIndices
        self.operationQueues = operationQueues
        self.parametersIndex = parametersIndex
        self.sharedParameters = sharedParameters
    }

    /// The task's type.
    func type(of task: Int) -> any TaskType { types[Int(typeIndex[task])] }

    /// The queue the task's operations go to.
    func operationQueue(of task: Int) -> OperationQueue { operationQueues[queueIndex[task]] }

    /// Whether every node of the task has the same parameters (looked up, not resolved per node).
    func sharesParameters(_ task: Int) -> Bool { parametersIndex[task] >= 0 }

    /// A node's parameters: the task's own when they do not depend on the item, otherwise resolved now.
    func parameters(of node: Int, in plan: Plan) -> ParameterValues {
        let task = plan.nodes[node].taskIndex
        let shared = parametersIndex[task]
        return shared >= 0 ? sharedParameters[Int(shared)] : plan.parameters(of: plan.nodes[node])
    }
}
