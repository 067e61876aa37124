import FlowBasics

extension UpToDate {
    /// The nodes a run skips without running anything for them: those whose record, of the key they have now, says
    /// they skipped themselves (``JournalRecord/skipped``, a `resize` that would enlarge under
    /// `withoutEnlargement: skip`), and the nodes below them that were skipped with them. A skip is a function of
    /// the key, as a result is: the same inputs skip again, and a changed input (another source file) gives
    /// another key, which decides again.
    ///
    /// What is below a skipped node stops at a `gather`, which runs without it, and at a node with a `runIf`, which
    /// decides for itself: both are decided as any node is.
    struct SettledSkips: Sendable, Equatable {
        /// The nodes whose record says they skipped themselves, with the cause they gave, by node index.
        private(set) var roots: [Int: String] = [:]
        /// The nodes skipped with them, each with the index of the root it is below.
        private(set) var downstream: [Int: Int] = [:]

        /// Whether no node is settled so.
        var isEmpty: Bool { roots.isEmpty }

        /// Whether a node is a root or below one.
        func contains(_ index: Int) -> Bool {
            roots[index] != nil || downstream[index] != nil
        }

        /// Every settled node, roots and those below them.
        var nodes: [Int] { Array(roots.keys) + Array(downstream.keys) }

        /// Adds a root with its cause, and what is skipped with it.
        mutating func add(_ root: Int, cause: String, of plan: Plan) {
            guard roots[root] == nil else { return }
            roots[root] = cause
            downstream[root] = nil
            let graph = plan.graph
            GraphAlgorithms.visit(from: CollectionOfOne(root), successors: graph.forEachDependent) { dependent in
                let task = plan.workflow.tasks[plan.nodes[dependent].taskIndex]
                guard !task.gather, task.runIf == .success, !contains(dependent) else { return false }
                downstream[dependent] = root
                return true
            }
        }

        /// Whether a node reads, directly or further up, what a node that runs every time makes: what it made may
        /// change in the run, so a skip recorded for the key it was decided with cannot be trusted before it.
        static func isBelowAnUnrepeatableNode(_ index: Int, of plan: Plan, tasks: [TaskFacts]) -> Bool {
            var found = false
            var seen: Set<Int> = []
            let graph = plan.graph
            GraphAlgorithms.visit(from: CollectionOfOne(index), successors: graph.forEachDependency) { dependency in
                guard !found, seen.insert(dependency).inserted else { return false }
                if tasks[plan.nodes[dependency].taskIndex].runsEveryTime { found = true }
                return !found
            }
            return found
        }

        /// The settled nodes of some nodes, by their new indices (``UpToDate/restricted(to:)``): a root or node below
        /// one that is left out takes its part of the plan with it.
        func restricted(to nodes: [Int]) -> SettledSkips {
            guard !isEmpty else { return self }
            var position: [Int: Int] = [:]
            for (newIndex, oldIndex) in nodes.enumerated() where contains(oldIndex) { position[oldIndex] = newIndex }
            var copy = SettledSkips()
            for (root, cause) in roots { if let at = position[root] { copy.roots[at] = cause } }
            for (node, root) in downstream {
                if let at = position[node], let rootAt = position[root] { copy.downstream[at] = rootAt }
            }
            return copy
        }
    }
}
