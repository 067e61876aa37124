import Foundation

extension RunReport {
    /// One report of several made by the parts of a run — the shards and the gather phase — with every node once.
    ///
    /// A node that ran in several shards (a task without `forEach` that every shard needs) keeps the record of
    /// the shard where it succeeded (or was cached), else of the first report. Nodes come task by task — in the order of the
    /// reports' task list, else the order tasks first appear — and items in order within a task. Each node's
    /// `dependencies` are positions in the merged report: the plan's edges when `plan` is given (the gather phase
    /// knows them all), else the edges each report recorded, between the nodes the merged report has. Times are
    /// shifted onto the earliest start, so the spans of all the parts share one clock (as far as the machines'
    /// clocks agree).
    /// - Parameters:
    ///   - reports: The reports, at least one, of the same workflow.
    ///   - plan: The whole plan of the workflow, when known.
    package static func merging(_ reports: [RunReport], plan: Plan? = nil) -> RunReport {
        precondition(!reports.isEmpty, "merging needs at least one report")
        let origin = reports.map(\.startedAt).min() ?? reports[0].startedAt
        let tasks = reports.map(\.tasks).first { !$0.isEmpty } ?? []
        var taskOrder = Dictionary(tasks.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        var chosen: [String: (node: Node, dependsOn: [String])] = [:]
        var end = 0.0
        for report in reports {
            let offset = report.startedAt.timeIntervalSince(origin)
            end = max(end, offset + report.duration)
            for var node in report.nodes {
                if taskOrder[node.task] == nil { taskOrder[node.task] = taskOrder.count }
                if let kept = chosen[node.id], kept.node.status.isDone || !node.status.isDone { continue }
                node.spans = node.spans.map { span in
                    Span(start: span.start + offset, end: span.end + offset, lane: span.lane, attempt: span.attempt)
                }
                let dependsOn = node.dependencies.compactMap { $0 < report.nodes.count ? report.nodes[$0].id : nil }
                chosen[node.id] = (node, dependsOn)
            }
        }
        var ordered = chosen.values.sorted { lhs, rhs in
            let left = taskOrder[lhs.node.task] ?? 0
            let right = taskOrder[rhs.node.task] ?? 0
            if left != right { return left < right }
            return (lhs.node.item ?? -1, lhs.node.id) < (rhs.node.item ?? -1, rhs.node.id)
        }
        let position = Dictionary(
            ordered.enumerated().map { ($1.node.id, $0) }, uniquingKeysWith: { first, _ in first })
        let planIndex = plan.map { plan in
            Dictionary(plan.nodes.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
        for index in ordered.indices {
            var dependsOn = ordered[index].dependsOn
            if let plan, let planIndex, let own = planIndex[ordered[index].node.id] {
                dependsOn = plan.dependencies(of: own).map { plan.nodes[$0].id }
            }
            ordered[index].node.dependencies = dependsOn.compactMap { position[$0] }.sorted()
        }
        var limits: [String: Int] = [:]
        for report in reports { limits.merge(report.queueLimits) { first, _ in first } }
        var merged = RunReport(
            workflow: reports[0].workflow, path: reports[0].path, startedAt: origin, duration: end,
            interrupted: reports.contains(where: \.interrupted), nodes: Nodes(ordered.map(\.node)), queueLimits: limits)
        merged.tasks = tasks
        return merged
    }
}
