import Foundation

/// Writes a run as a Chrome trace (the JSON Perfetto and chrome://tracing open): one lane per queue slot,
/// one slice per attempt, so the schedule and each queue's concurrency are visible at a glance.
public enum ChromeTrace {
    /// The trace of a report, as JSON.
    public static func json(for report: RunReport) throws -> Data {
        var events: [[String: Any]] = []
        let queues = Array(Set(report.nodes.map(\.queue))).sorted()
        let queueNumber = Dictionary(uniqueKeysWithValues: queues.enumerated().map { ($0.element, $0.offset + 1) })
        var lanesSeen = Set<String>()
        events.append(["name": "process_name", "ph": "M", "pid": 1, "args": ["name": "flowrun \(report.workflow)"]])
        for node in report.nodes {
            let pid = queueNumber[node.queue] ?? 0
            for span in node.spans {
                let laneKey = "\(node.queue)#\(span.lane)"
                if lanesSeen.insert(laneKey).inserted {
                    events.append([
                        "name": "thread_name", "ph": "M", "pid": 1, "tid": pid * 1000 + span.lane,
                        "args": ["name": "\(node.queue) slot \(span.lane + 1)"],
                    ])
                }
                events.append([
                    "name": node.id, "cat": node.type, "ph": "X", "pid": 1, "tid": pid * 1000 + span.lane,
                    "ts": (span.start * 1_000_000).rounded(),
                    "dur": max(((span.end - span.start) * 1_000_000).rounded(), 1),
                    "args": ["status": node.status.rawValue, "attempt": span.attempt, "cause": node.cause ?? ""],
                ])
            }
        }
        return try JSONSerialization.data(
            withJSONObject: ["traceEvents": events, "displayTimeUnit": "ms"], options: [.sortedKeys])
    }
}
