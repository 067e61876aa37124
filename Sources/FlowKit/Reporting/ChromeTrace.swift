import FlowBasics
import Foundation

/// Writes a run as a Chrome trace (the JSON Perfetto and chrome://tracing open): one lane per queue slot,
/// one slice per attempt, so the schedule and each queue's concurrency are visible at a glance.
package enum ChromeTrace {
    /// Writes the trace of a report to `path`, one event at a time, replacing the file atomically.
    package static func write(_ report: RunReport, toPath path: String) throws {
        var stream = try JSONWriter(path: path)
        do {
            try writeEvents(of: report, to: &stream)
        } catch {
            stream.abandon()
            throw error
        }
        try stream.commit()
    }

    private static func writeEvents(of report: RunReport, to stream: inout JSONWriter) throws {
        // Each queue is a process-wide block of thread ids, in name order; each slot a thread in it.
        let queues = report.queueLimits.keys.sorted()
        let queueNumber = Dictionary(uniqueKeysWithValues: queues.enumerated().map { ($0.element, $0.offset + 1) })
        var lanesSeen = Set<Int>()
        try stream.literal("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n")
        try stream.literal("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": ")
        try stream.value("flowrun \(report.workflow)")
        try stream.literal("}}")
        for node in report.nodes {
            let pid = queueNumber[node.queue] ?? 0
            if node.status == .cached || node.status == .restored {
                // Never ran, so no slice: an instant at the start, on its queue's block of lanes.
                try stream.literal(",\n{\"name\": ")
                try stream.value(node.id)
                try stream.literal(", \"cat\": ")
                try stream.value(node.type)
                try stream.literal(", \"ph\": \"i\", \"s\": \"t\", \"pid\": 1, \"tid\": ")
                try stream.value(pid * 1000)
                try stream.literal(", \"ts\": 0, \"args\": {\"status\": \"cached\", \"key\": ")
                try stream.value(node.key ?? "")
                try stream.literal("}}")
            }
            for span in node.spans {
                let thread = pid * 1000 + span.lane
                if lanesSeen.insert(thread).inserted {
                    try stream.literal(",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": ")
                    try stream.value(thread)
                    try stream.literal(", \"args\": {\"name\": ")
                    try stream.value("\(node.queue) slot \(span.lane + 1)")
                    try stream.literal("}}")
                }
                try stream.literal(",\n{\"name\": ")
                try stream.value(node.id)
                try stream.literal(", \"cat\": ")
                try stream.value(node.type)
                try stream.literal(", \"ph\": \"X\", \"pid\": 1, \"tid\": ")
                try stream.value(thread)
                try stream.literal(", \"ts\": ")
                try stream.value((span.start * 1_000_000).rounded())
                try stream.literal(", \"dur\": ")
                try stream.value(max(((span.end - span.start) * 1_000_000).rounded(), 1))
                try stream.literal(", \"args\": {\"status\": ")
                try stream.value(node.status.rawValue)
                try stream.literal(", \"attempt\": ")
                try stream.value(span.attempt)
                try stream.literal(", \"cause\": ")
                try stream.value(node.cause ?? "")
                try stream.literal("}}")
            }
        }
        try stream.literal("\n]}\n")
    }
}
