import Foundation

extension RunReport {
    /// The report of a run made in two phases (a list made at run time: ``RunSession/prepare()``): this report, of
    /// the second phase, with the records of the nodes the first phase ran taken from its report, on one clock
    /// that starts with the first. Nodes are made when read, as a runner's are, so nothing is held twice.
    /// - Parameters:
    ///   - first: The first phase's report.
    ///   - records: For each node of this report the first phase ran, its position in `first`.
    package func following(_ first: RunReport, records: [Int: Int]) -> RunReport {
        let offset = max(0, startedAt.timeIntervalSince(first.startedAt))
        let second = nodes
        let earlier = first.nodes
        let merged = Nodes(
            count: second.count,
            node: { index in
                guard let at = records[index] else {
                    var node = second[index]
                    node.spans = node.spans.map {
                        Span(start: $0.start + offset, end: $0.end + offset, lane: $0.lane, attempt: $0.attempt)
                    }
                    return node
                }
                var node = earlier[at]
                node.dependencies = second[index].dependencies
                return node
            },
            status: { index in records[index].map { earlier.status(at: $0) } ?? second.status(at: index) },
            continuesOnError: { second.continuesOnError(at: $0) })
        var report = RunReport(
            workflow: workflow, path: path, startedAt: first.startedAt, duration: offset + duration,
            interrupted: first.interrupted || interrupted, nodes: merged, queueLimits: queueLimits)
        report.taskList = taskList
        return report
    }
}
