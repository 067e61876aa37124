/// What the gather phase runs, decided from the shards' reports: the gather nodes whose upstream nodes all
/// succeeded in their shards, and the others skipped as a single run would have skipped them.
package struct GatherPhase: Sendable {
    /// A shard without a complete report: it did not run, did not finish, or ran another version of the workflow.
    package struct MissingShard: Sendable, CustomStringConvertible {
        /// The shard.
        package let shard: Shard
        /// Why its report does not count.
        package let reason: String
        /// The items it should have run, per expanded task.
        package let items: [(task: String, items: ShardPlan.Items)]

        package var description: String {
            let ranges = ShardPlan.describe(items)
            return "shard \(shard)\(ranges.isEmpty ? "" : " (\(ranges))"): \(reason)"
        }
    }

    /// The gather nodes to run, by index in ``Plan/nodes``.
    package let nodesToRun: [Int]
    /// The gather nodes not run because something upstream did not succeed in its shard, as report records.
    package let skipped: [RunReport.Node]

    /// Decides the gather phase of `split` from the reports of its `count` shards.
    /// - Returns: The phase, or the shards whose reports are missing or incomplete (then nothing may run).
    package static func decide(_ split: ShardPlan, count: Int, reports: [Int: RunReport]) -> Result<
        GatherPhase, MissingShards
    > {
        let plan = split.plan
        var statuses: [String: RunReport.Node] = [:]
        var missing: [MissingShard] = []
        for index in 1...count {
            // `count` was checked by the caller; a shard outside 1...count cannot be made.
            guard let shard = try? Shard(index: index, count: count) else { continue }
            let reason: String?
            if let report = reports[index] {
                for node in report.nodes where !(statuses[node.id]?.status.isDone ?? false) { statuses[node.id] = node }
                if report.interrupted {
                    reason = "it was interrupted"
                } else if let absent = split.nodes(in: shard).first(where: { statuses[plan.nodes[$0].id] == nil }) {
                    reason =
                        "its report has no node \(plan.nodes[absent].id) (was it made from another version of the workflow?)"
                } else {
                    reason = nil
                }
            } else {
                reason = "no report: it has not run, or did not finish"
            }
            if let reason { missing.append(MissingShard(shard: shard, reason: reason, items: split.items(in: shard))) }
        }
        guard missing.isEmpty else { return .failure(MissingShards(shards: missing)) }

        var run: [Int] = []
        var skipped: [RunReport.Node] = []
        var blocked: [Int: String] = [:]  // a gather node that will not run, and the cause its dependents repeat
        for index in split.gatherNodes {
            let node = plan.nodes[index]
            var cause: String?
            for dependency in plan.dependencies(of: index) {
                if let inherited = blocked[dependency] {
                    cause = inherited
                } else if !split.isGathered[dependency], let record = statuses[plan.nodes[dependency].id],
                    !record.status.isDone
                {
                    cause =
                        "upstream \(record.id) \(record.status.rawValue) in its shard"
                        + (record.cause.map { ": \($0)" } ?? "")
                }
                if cause != nil { break }
            }
            guard let cause else {
                run.append(index)
                continue
            }
            blocked[index] = cause
            let task = plan.task(of: node)
            skipped.append(
                RunReport.Node(
                    id: node.id, task: task.id.value, item: node.itemIndex, type: task.type.value,
                    queue: task.queueName,
                    status: .skipped,
                    attempts: 0, code: NodeFailure.Code.upstream.description, cause: cause, location: nil,
                    continueOnError: task.continueOnError, spans: []))
        }
        return .success(GatherPhase(nodesToRun: run, skipped: skipped))
    }
}

/// The shards a gather phase is missing.
package struct MissingShards: Error, Sendable, CustomStringConvertible {
    /// Each missing shard with its items and the reason.
    package let shards: [GatherPhase.MissingShard]

    package var description: String {
        "\(shards.count) shard\(shards.count == 1 ? "" : "s") did not finish: "
            + shards.map(\.description).joined(separator: "; ")
    }
}

extension NodeStatus {
    /// Whether the node's work is there: it succeeded in this run, or the store had it (`cached`).
    var isDone: Bool { self == .succeeded || self == .cached || self == .restored }
}
