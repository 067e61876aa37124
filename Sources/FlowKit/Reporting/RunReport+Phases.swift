import Foundation

extension RunReport {
    /// Where a node of a run made in phases ran before the last phase: the report it is in, and its position there.
    package struct EarlierRecord: Sendable {
        /// The report, as an index into the earlier reports (the first phase's is 0).
        var report: Int
        /// The node's position in that report.
        var at: Int
    }

    /// The report of a run made in two phases (a list made at run time: ``RunSession/prepare()``): this report, of
    /// the second phase, with the records of the nodes the first phase ran taken from its report, on one clock
    /// that starts with the first. Nodes are made when read, as a runner's are, so nothing is held twice.
    /// - Parameters:
    ///   - first: The first phase's report.
    ///   - records: For each node of this report the first phase ran, its position in `first`.
    package func following(_ first: RunReport, records: [Int: Int]) -> RunReport {
        following([first], records: records.mapValues { EarlierRecord(report: 0, at: $0) })
    }

    /// The report of a run made in phases, some running side by side (the item batches of a list that streams
    /// run beside its producer): this report, of the last phase, with the records of the nodes the earlier ones
    /// ran taken from their reports, on one clock that starts with the first of them.
    /// - Parameters:
    ///   - earlier: The earlier phases' reports, the first phase's first.
    ///   - records: For each node of this report an earlier phase ran, where its record is.
    package func following(_ earlier: [RunReport], records: [Int: EarlierRecord]) -> RunReport {
        let origin = earlier[0].startedAt
        let offset = max(0, startedAt.timeIntervalSince(origin))
        let offsets = earlier.map { max(0, $0.startedAt.timeIntervalSince(origin)) }
        let last = nodes
        let reports = earlier.map(\.nodes)
        let merged = Nodes(
            count: last.count,
            node: { index in
                guard let record = records[index] else { return last[index].shifted(by: offset) }
                var node = reports[record.report][record.at].shifted(by: offsets[record.report])
                node.dependencies = last[index].dependencies
                return node
            },
            status: { index in
                records[index].map { reports[$0.report].status(at: $0.at) } ?? last.status(at: index)
            },
            continuesOnError: { last.continuesOnError(at: $0) })
        var report = RunReport(
            workflow: workflow, path: path, startedAt: origin, duration: offset + duration,
            interrupted: earlier.contains(where: \.interrupted) || interrupted, nodes: merged,
            queueLimits: queueLimits)
        report.taskList = taskList
        return report
    }
}

extension RunReport.Node {
    /// The node with its spans later by `offset` seconds: on the clock of a run that started that much earlier.
    fileprivate func shifted(by offset: Double) -> RunReport.Node {
        guard offset > 0 else { return self }
        var node = self
        node.spans = spans.map {
            RunReport.Span(start: $0.start + offset, end: $0.end + offset, lane: $0.lane, attempt: $0.attempt)
        }
        return node
    }
}
