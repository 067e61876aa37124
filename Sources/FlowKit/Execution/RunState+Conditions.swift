import FlowBasics

/// `runIf`: what a node's dependencies ending does to it. A node with the default `success` is skipped as soon
/// as one dependency fails or is skipped; the others wait until every dependency has ended, then decide.
extension RunState {
    /// A node whose dependencies have all ended: queued, or skipped when its condition is not met.
    mutating func settle(_ index: Int, _ effects: inout Effects) {
        let condition = conditions[plan.nodes[index].taskIndex]
        guard condition != .success else { return makeReady(index, &effects) }
        var anyFailed = false
        var anyNotRun = false
        graph.forEachDependency(of: index) { dependency in
            switch nodes[dependency].status {
            case .failed: anyFailed = true
            case .succeeded, .cached: break
            default: anyNotRun = true
            }
        }
        let unmet: String? =
            switch condition {
            case .success, .always: nil
            case .allDone: anyNotRun ? "runIf: allDone, and a dependency did not run" : nil
            case .anyFailed: anyFailed ? nil : "runIf: anyFailed, and no dependency failed"
            }
        guard let unmet else { return makeReady(index, &effects) }
        skip(index, because: unmet, &effects)
        endDownstream(of: index, because: "upstream \(plan.nodes[index].id) was skipped", &effects)
    }

    /// A node failed, was cancelled or skipped: dependents that run only after success are skipped (and
    /// theirs, transitively); the others count it as ended and decide once all their dependencies have. After a
    /// node skipped itself (`afterSkip`), a gather reached on the way runs over the items that remain instead, and
    /// the nodes skipped on the way are listed in `skippedBelow` so the store can record them too.
    mutating func endDownstream(
        of root: Int, because cause: String, afterSkip: Bool = false, _ effects: inout Effects
    ) {
        let graph = self.graph
        GraphAlgorithms.visit(from: CollectionOfOne(root), successors: graph.forEachDependent) { dependent in
            if afterSkip, plan.workflow.tasks[plan.nodes[dependent].taskIndex].gather {
                releaseGatheredInput(of: dependent, &effects)
                return false
            }
            guard nodes[dependent].status == .pending else { return false }
            if conditions[plan.nodes[dependent].taskIndex] == .success {
                skip(dependent, because: cause, &effects)
                if afterSkip { effects.skippedBelow.append(dependent) }
                return true
            }
            nodes[dependent].pendingDependencies -= 1
            if nodes[dependent].pendingDependencies == 0, !cancelled { settle(dependent, &effects) }
            return false
        }
    }

    /// A node found it had nothing to do (``FlowOperation/Outcome/skipped(_:)``), now or, as the store recorded,
    /// for the same key last run: it ends `skipped` with its cause. Its dependents that run only after success are
    /// skipped (and theirs, transitively), as after any skip; but a gather after it — or after one of them — runs
    /// over the items that remain, as it does when the app cancels an item: nothing failed.
    mutating func skipUnneeded(_ index: Int, because cause: String, _ effects: inout Effects) {
        failures[index] = NodeFailure(.notNeeded, cause, node: plan.nodes[index].id)
        setStatus(index, .skipped)
        event(index, &effects, failure: failures[index])
        resolve(index, &effects)
        endDownstream(
            of: index, because: "upstream \(plan.nodes[index].id) was skipped", afterSkip: true, &effects)
    }

    mutating func skip(_ index: Int, because cause: String, _ effects: inout Effects) {
        failures[index] = NodeFailure(.upstream, cause, node: plan.nodes[index].id)
        setStatus(index, .skipped)
        event(index, &effects, failure: failures[index])
        resolve(index, &effects)
    }

    /// Whether a node that just succeeded made a partial result — it ran without some of its inputs, or read a
    /// partial result — recorded so that its readers' results are partial too.
    mutating func recordsPartialResult(_ index: Int) -> Bool {
        var partial = missingInputs(of: index) != nil
        graph.forEachDependency(of: index) { dependency in
            if partialResults.contains(dependency) { partial = true }
        }
        if partial { partialResults.insert(index) }
        return partial
    }

    /// The dependencies that did not succeed, for a node that ran without them; `nil` for every other node.
    func missingInputs(of index: Int) -> [String]? {
        guard conditions[plan.nodes[index].taskIndex] != .success, nodes[index].attempts > 0 else { return nil }
        var missing: [String] = []
        graph.forEachDependency(of: index) { dependency in
            let status = nodes[dependency].status
            if status != .succeeded && status != .cached { missing.append(plan.nodes[dependency].id) }
        }
        return missing.isEmpty ? nil : missing
    }
}
