/// The plan's edges as flat arrays of indexes (compressed sparse rows), plus each node's queue, priority
/// and depth: the one place a plan keeps its node graph. The runner's bookkeeping reads it on every
/// completion, so it is laid out for that: reading it costs no reference counting and no allocation.
struct NodeGraph: Sendable {
    private var dependencyStart: [Int32] = [0]
    private var dependencyList: [Int32] = []
    private var dependentStart: [Int32] = [0]
    private var dependentList: [Int32] = []
    /// Each node's queue, as an index into the workflow's queues.
    private(set) var queue: [Int32] = []
    /// Each node's ready-heap key parts: priority (0 veryLow … 4 veryHigh) and depth in the task graph.
    private(set) var priority: [Int8] = []
    private(set) var depth: [Int32] = []

    /// Collects the nodes in plan order, each after its dependencies, then indexes the dependents once.
    struct Builder {
        private var graph = NodeGraph()
        private var dependentCount: [Int32] = []

        init(capacity: Int = 0) {
            graph.dependencyStart.reserveCapacity(capacity + 1)
            graph.queue.reserveCapacity(capacity)
            graph.priority.reserveCapacity(capacity)
            graph.depth.reserveCapacity(capacity)
            dependentCount.reserveCapacity(capacity)
        }

        /// Adds the next node.
        /// - Parameter dependencies: Indexes of nodes added before it.
        mutating func append(dependencies: some Sequence<Int>, queue: Int32, priority: Int8, depth: Int32) {
            for dependency in dependencies {
                graph.dependencyList.append(Int32(dependency))
                dependentCount[dependency] += 1
            }
            graph.dependencyStart.append(Int32(graph.dependencyList.count))
            graph.queue.append(queue)
            graph.priority.append(priority)
            graph.depth.append(depth)
            dependentCount.append(0)
        }

        /// The graph, with each node's dependents in increasing order.
        consuming func build() -> NodeGraph {
            var dependentStart: [Int32] = [0]
            dependentStart.reserveCapacity(dependentCount.count + 1)
            for count in dependentCount { dependentStart.append(dependentStart[dependentStart.count - 1] + count) }
            var fill = Array(dependentStart.dropLast())
            var dependentList = [Int32](repeating: 0, count: graph.dependencyList.count)
            for index in 0..<graph.count {
                graph.forEachDependency(of: index) { dependency in
                    dependentList[Int(fill[dependency])] = Int32(index)
                    fill[dependency] += 1
                }
            }
            graph.dependentStart = dependentStart
            graph.dependentList = dependentList
            return graph
        }
    }

    var count: Int { queue.count }

    func dependencyCount(of index: Int) -> Int { Int(dependencyStart[index + 1] - dependencyStart[index]) }
    func dependentCount(of index: Int) -> Int { Int(dependentStart[index + 1] - dependentStart[index]) }

    /// Calls `body` with each dependency of a node, in increasing order.
    @inline(__always)
    func forEachDependency(of index: Int, _ body: (Int) -> Void) {
        dependencyList.withUnsafeBufferPointer { list in
            for slot in Int(dependencyStart[index])..<Int(dependencyStart[index + 1]) { body(Int(list[slot])) }
        }
    }

    /// Calls `body` with each dependent of a node, in increasing order.
    @inline(__always)
    func forEachDependent(of index: Int, _ body: (Int) -> Void) {
        dependentList.withUnsafeBufferPointer { list in
            for slot in Int(dependentStart[index])..<Int(dependentStart[index + 1]) { body(Int(list[slot])) }
        }
    }

    /// The graph of some of the nodes, in the order given, with the edges between them; edges to nodes left
    /// out are dropped.
    /// - Parameter nodes: Indexes of the nodes to keep, each after its kept dependencies.
    func restricted(to nodes: [Int]) -> NodeGraph {
        var position = [Int](repeating: -1, count: count)
        for (newIndex, oldIndex) in nodes.enumerated() { position[oldIndex] = newIndex }
        var builder = Builder(capacity: nodes.count)
        for oldIndex in nodes {
            var kept: [Int] = []
            forEachDependency(of: oldIndex) { if position[$0] >= 0 { kept.append(position[$0]) } }
            builder.append(
                dependencies: kept.sorted(), queue: queue[oldIndex], priority: priority[oldIndex],
                depth: depth[oldIndex])
        }
        return builder.build()
    }
}
