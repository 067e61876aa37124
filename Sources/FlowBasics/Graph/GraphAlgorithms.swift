/// The graph walks every layer shares — the task graph while validating, the node graph while planning and
/// running, the report's graphs in the `--html` page, the DAGs of an Argo export — over nodes numbered
/// `0..<count` whose edges a closure gives. One implementation of each: a topological order, the cycles, the
/// longest-path levels, and pruned depth-first and breadth-first visits.
///
/// Each walk keeps an explicit stack, so a chain of a million nodes cannot overflow the call stack, and takes
/// its edges as a closure, so callers keep whatever storage suits them (arrays of arrays, compressed rows).
package enum GraphAlgorithms {
    /// Orders the nodes so that every node comes after all its predecessors (Kahn's algorithm): among nodes
    /// that are ready together, the lower index first, so the order is stable and readable.
    /// - Parameters:
    ///   - count: The number of nodes.
    ///   - predecessors: The distinct nodes each node comes after.
    /// - Returns: The order, or `nil` when the graph has a cycle.
    @inlinable package static func topologicalSort<Predecessors: Collection<Int>>(
        count: Int, predecessors: (Int) -> Predecessors
    ) -> [Int]? {
        var indegree = [Int](repeating: 0, count: count)
        var successors = [[Int]](repeating: [], count: count)
        for node in 0..<count {
            let before = predecessors(node)
            indegree[node] = before.count
            for predecessor in before { successors[predecessor].append(node) }
        }
        var order = (0..<count).filter { indegree[$0] == 0 }
        order.reserveCapacity(count)
        var cursor = 0
        while cursor < order.count {
            for next in successors[order[cursor]] {
                indegree[next] -= 1
                if indegree[next] == 0 { order.append(next) }
            }
            cursor += 1
        }
        return order.count == count ? order : nil
    }

    /// One step along a cycle: a node and the position, in its successor list, of the edge taken from it.
    package struct CycleStep: Equatable {
        package var node: Int
        package var edge: Int

        package init(node: Int, edge: Int) {
            self.node = node
            self.edge = edge
        }
    }

    /// Finds cycles by depth-first search, calling `body` once per edge that closes one, with the path from the
    /// cycle's first node round to the edge that returns to it. Every node is in some reported cycle when the
    /// graph has any; a cycle reached twice through different edges is reported for each.
    /// - Parameters:
    ///   - count: The number of nodes.
    ///   - successors: Each node's outgoing edges, in order; positions in this list are the steps' `edge`.
    ///   - body: Called with each cycle's steps, first node first.
    package static func findCycles(count: Int, successors: (Int) -> [Int], onCycle body: ([CycleStep]) -> Void) {
        enum Mark { case unvisited, onPath, done }
        let edges = (0..<count).map(successors)
        var mark = [Mark](repeating: .unvisited, count: count)
        for root in 0..<count where mark[root] == .unvisited {
            // The path: each node with the next of its edges to try.
            var path = [CycleStep(node: root, edge: 0)]
            mark[root] = .onPath
            while let step = path.last {
                guard step.edge < edges[step.node].count else {
                    mark[step.node] = .done
                    path.removeLast()
                    continue
                }
                path[path.count - 1].edge += 1
                let target = edges[step.node][step.edge]
                switch mark[target] {
                case .unvisited:
                    mark[target] = .onPath
                    path.append(CycleStep(node: target, edge: 0))
                case .onPath:
                    guard let start = path.firstIndex(where: { $0.node == target }) else { continue }
                    body(path[start...].map { CycleStep(node: $0.node, edge: $0.edge - 1) })
                case .done:
                    break
                }
            }
        }
    }

    /// Each node's level: 0 without predecessors, otherwise one more than its highest predecessor — the
    /// length of the longest path that ends at it.
    /// - Parameters:
    ///   - order: Every node once, each after its predecessors (a topological order).
    ///   - count: The number of nodes.
    ///   - predecessors: Calls its second argument with each predecessor of a node.
    @inlinable package static func levels(
        order: some Sequence<Int>, count: Int, predecessors: (Int, (Int) -> Void) -> Void
    ) -> [Int] {
        var level = [Int](repeating: 0, count: count)
        for node in order {
            var highest = -1
            predecessors(node) { highest = max(highest, level[$0]) }
            level[node] = highest + 1
        }
        return level
    }

    /// Visits the nodes reachable from `roots`, depth first: `enter` is called for each successor found (the
    /// roots themselves are not entered), and the walk goes on through it only when `enter` returns `true`.
    /// `enter` decides about repeats too: return `false` for a node already seen.
    /// - Parameters:
    ///   - roots: Where the walk starts.
    ///   - successors: Calls its second argument with each successor of a node.
    ///   - enter: Called for each successor reached; returns whether to walk on through it.
    @inlinable @inline(__always)
    package static func visit(
        from roots: some Sequence<Int>, successors: (Int, (Int) -> Void) -> Void, enter: (Int) -> Bool
    ) {
        var stack = Array(roots)
        // `successors` cannot call back into `enter` behind the walk's back: both only ever run here, in turn.
        withoutActuallyEscaping(enter) { enter in
            while let node = stack.popLast() {
                successors(node) { next in
                    if enter(next) { stack.append(next) }
                }
            }
        }
    }

    /// Visits the nodes reachable from `roots` breadth first, so nearer nodes are entered before farther ones:
    /// `enter` is called for each successor found (the roots themselves are not entered), and the walk goes on
    /// through it only when `enter` returns `true`. `enter` decides about repeats too, as in
    /// ``visit(from:successors:enter:)``.
    /// - Parameters:
    ///   - roots: Where the walk starts.
    ///   - successors: Calls its second argument with each successor of a node.
    ///   - enter: Called for each successor reached; returns whether to walk on through it.
    @inlinable package static func visitBreadthFirst(
        from roots: some Sequence<Int>, successors: (Int, (Int) -> Void) -> Void, enter: (Int) -> Bool
    ) {
        var queue = Array(roots)
        var next = 0
        withoutActuallyEscaping(enter) { enter in
            while next < queue.count {
                let node = queue[next]
                next += 1
                successors(node) { successor in
                    if enter(successor) { queue.append(successor) }
                }
            }
        }
    }

    /// The nodes reachable from `roots` along edges that `successors` gives, roots included.
    /// - Returns: For each node, whether it is reachable.
    @inlinable package static func reachable(
        from roots: some Sequence<Int>, count: Int, successors: (Int, (Int) -> Void) -> Void
    ) -> [Bool] {
        var seen = [Bool](repeating: false, count: count)
        var start: [Int] = []
        for root in roots where !seen[root] {
            seen[root] = true
            start.append(root)
        }
        visit(from: start, successors: successors) { next in
            guard !seen[next] else { return false }
            seen[next] = true
            return true
        }
        return seen
    }
}
