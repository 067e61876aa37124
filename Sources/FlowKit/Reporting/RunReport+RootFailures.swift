extension RunReport {
    /// A node that failed by itself (not skipped for another's failure), and how many nodes were skipped
    /// because of it: what a summary names, one line each, instead of a row per skipped dependent.
    package struct RootFailure: Sendable {
        /// The failed node.
        package let node: Node
        /// The nodes skipped, directly or through other skipped nodes, because this one failed.
        package let skippedDependents: Int
    }

    /// How many nodes failed.
    package var failureCount: Int { nodes.indices.lazy.filter { nodes.status(at: $0) == .failed }.count }

    /// The first `limit` failed nodes in plan order, each with the dependents its failure skipped.
    ///
    /// Only the skipped nodes are made (a million-node run that succeeded is scanned by status alone); a node
    /// skipped for two failures counts for both.
    package func rootFailures(limit: Int) -> [RootFailure] {
        let failed = nodes.indices.lazy.filter { nodes.status(at: $0) == .failed }.prefix(limit)
        guard !failed.isEmpty else { return [] }
        var dependents: [Int: [Int]] = [:]
        for index in nodes.indices where nodes.status(at: index) == .skipped {
            for dependency in nodes[index].dependencies { dependents[dependency, default: []].append(index) }
        }
        return failed.map { root in
            var seen: Set<Int> = [root]
            var pending = [root]
            while let next = pending.popLast() {
                for dependent in dependents[next] ?? [] where seen.insert(dependent).inserted {
                    pending.append(dependent)
                }
            }
            return RootFailure(node: nodes[root], skippedDependents: seen.count - 1)
        }
    }
}
