import Foundation

/// What happened in a run: every node's status, attempts, times and cause, and the totals.
///
/// `--report run.json` writes this as JSON; the summary table and the Chrome trace are drawn from it.
public struct RunReport: Sendable, Codable {
    /// One attempt of a node, as placed on its queue.
    public struct Span: Sendable, Codable, Hashable {
        /// Seconds from the start of the run.
        public var start: Double
        /// Seconds from the start of the run.
        public var end: Double
        /// The slot of the queue the attempt ran in (0-based), one trace lane per slot.
        public var lane: Int
        /// The attempt number, 1-based.
        public var attempt: Int
    }

    /// One node's record.
    public struct Node: Sendable, Codable {
        /// The node id, e.g. `fetch[3]`.
        public var id: String
        /// The task id.
        public var task: String
        /// The task type.
        public var type: String
        /// The queue.
        public var queue: String
        /// The final status.
        public var status: NodeStatus
        /// How many attempts started.
        public var attempts: Int
        /// When the first attempt started, in seconds from the start of the run.
        public var start: Double?
        /// When the last attempt ended, in seconds from the start of the run.
        public var end: Double?
        /// The failure code, for failed and skipped nodes.
        public var code: String?
        /// Why the node failed, was skipped or cancelled.
        public var cause: String?
        /// Whether a failure is tolerated by `continueOnError`.
        public var continueOnError: Bool
        /// Every attempt's place on its queue.
        public var spans: [Span]

        /// The node's running time, if it ran.
        public var duration: Double? {
            guard let start, let end else { return nil }
            return end - start
        }
    }

    /// The workflow's name.
    public var workflow: String
    /// The workflow file.
    public var path: String
    /// When the run started (wall clock).
    public var startedAt: Date
    /// How long the run took, in seconds.
    public var duration: Double
    /// Whether the run was interrupted (Ctrl-C, SIGTERM).
    public var interrupted: Bool
    /// Every node, in plan order.
    public var nodes: [Node]
    /// Each queue's concurrency limit.
    public var queueLimits: [String: Int]

    /// How many nodes ended in each status.
    public var totals: [NodeStatus: Int] {
        nodes.reduce(into: [:]) { $0[$1.status, default: 0] += 1 }
    }

    /// The process exit code this run calls for: 0 all succeeded, 1 a node failed, 130 interrupted.
    public var exitCode: Int32 {
        if interrupted { return 130 }
        let failed = nodes.contains { node in
            switch node.status {
            case .failed: !node.continueOnError
            case .cancelled: true  // fail-fast cancelled it after a failure
            default: false
            }
        }
        return failed ? 1 : 0
    }

    /// The report as pretty-printed JSON.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(JSONForm(self))
    }

    /// The JSON layout: the report plus totals keyed by status name.
    private struct JSONForm: Encodable {
        let report: RunReport
        init(_ report: RunReport) { self.report = report }

        enum CodingKeys: String, CodingKey {
            case workflow, path, startedAt, duration, interrupted, exitCode, totals, queues, nodes
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(report.workflow, forKey: .workflow)
            try container.encode(report.path, forKey: .path)
            try container.encode(report.startedAt, forKey: .startedAt)
            try container.encode(report.duration, forKey: .duration)
            try container.encode(report.interrupted, forKey: .interrupted)
            try container.encode(report.exitCode, forKey: .exitCode)
            let totals = Dictionary(uniqueKeysWithValues: report.totals.map { ($0.key.rawValue, $0.value) })
            try container.encode(totals, forKey: .totals)
            try container.encode(report.queueLimits, forKey: .queues)
            try container.encode(report.nodes, forKey: .nodes)
        }
    }
}
