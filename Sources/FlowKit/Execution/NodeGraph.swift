/// The plan's edges as flat arrays of indexes (compressed sparse rows), plus each node's queue, priority
/// and depth: what the runner's bookkeeping reads on every completion, laid out so reading it costs no
/// reference counting (a `PlannedNode` holds strings and arrays; touching one retains them).
struct NodeGraph: Sendable {
    private let dependencyStart: [Int32]
    private let dependencyList: [Int32]
    private let dependentStart: [Int32]
    private let dependentList: [Int32]
    /// Each node's queue, as an index into the workflow's queues.
    let queue: [Int32]
    /// Each node's ready-heap key parts: priority (0 veryLow … 4 veryHigh) and depth in the task graph.
    let priority: [Int8]
    let depth: [Int32]

    init(plan: Plan, queueIndexOfTask: [Int]) {
        // Nodes and tasks are read field by field: copying a whole `PlannedNode` or `TaskSpec` costs a retain
        // per field, per node.
        let nodes = plan.nodes
        var dependencyStart: [Int32] = [0]
        dependencyStart.reserveCapacity(nodes.count + 1)
        var dependencyList: [Int32] = []
        var dependentCount = [Int32](repeating: 0, count: nodes.count)
        for index in nodes.indices {
            for dependency in nodes[index].dependencies {
                dependencyList.append(Int32(dependency))
                dependentCount[dependency] += 1
            }
            dependencyStart.append(Int32(dependencyList.count))
        }
        var dependentStart: [Int32] = [0]
        for count in dependentCount { dependentStart.append(dependentStart[dependentStart.count - 1] + count) }
        var fill = Array(dependentStart.dropLast())
        var dependentList = [Int32](repeating: 0, count: dependencyList.count)
        for index in plan.nodes.indices {
            for slot in Int(dependencyStart[index])..<Int(dependencyStart[index + 1]) {
                let dependency = Int(dependencyList[slot])
                dependentList[Int(fill[dependency])] = Int32(index)
                fill[dependency] += 1
            }
        }
        let tasks = plan.workflow.tasks
        var taskDepth = [Int32](repeating: 0, count: tasks.count)
        for index in nodes.indices {  // plan order is topological
            let task = nodes[index].taskIndex
            for slot in Int(dependencyStart[index])..<Int(dependencyStart[index + 1]) {
                let upstreamTask = nodes[Int(dependencyList[slot])].taskIndex
                taskDepth[task] = max(taskDepth[task], taskDepth[upstreamTask] + 1)
            }
        }
        let taskPriority = tasks.indices.map { Int8(PriorityName.allCases.firstIndex(of: tasks[$0].priority) ?? 2) }
        self.dependencyStart = dependencyStart
        self.dependencyList = dependencyList
        self.dependentStart = dependentStart
        self.dependentList = dependentList
        queue = nodes.indices.map { Int32(queueIndexOfTask[nodes[$0].taskIndex]) }
        priority = nodes.indices.map { taskPriority[nodes[$0].taskIndex] }
        depth = nodes.indices.map { taskDepth[nodes[$0].taskIndex] }
    }

    var count: Int { queue.count }

    func dependencyCount(of index: Int) -> Int { Int(dependencyStart[index + 1] - dependencyStart[index]) }
    func dependentCount(of index: Int) -> Int { Int(dependentStart[index + 1] - dependentStart[index]) }

    /// Calls `body` with each dependency of a node.
    @inline(__always)
    func forEachDependency(of index: Int, _ body: (Int) -> Void) {
        dependencyList.withUnsafeBufferPointer { list in
            for slot in Int(dependencyStart[index])..<Int(dependencyStart[index + 1]) { body(Int(list[slot])) }
        }
    }

    /// Calls `body` with each dependent of a node.
    @inline(__always)
    func forEachDependent(of index: Int, _ body: (Int) -> Void) {
        dependentList.withUnsafeBufferPointer { list in
            for slot in Int(dependentStart[index])..<Int(dependentStart[index + 1]) { body(Int(list[slot])) }
        }
    }
}
