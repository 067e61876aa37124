import Foundation
import Testing

/// The per-queue limit holds for the nodes of a list made at run time (`forEach: { from: TASK }`), as for any
/// other node: thousands of items on a queue of one slot run one at a time.
@Suite struct RunTimeListQueueLimitTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    /// One attempt of a node, as the report places it on its queue.
    private struct Attempt {
        let node: String
        let start: Double
        let end: Double
        let lane: Int
    }

    @Test func twoThousandItemsOnAQueueOfOneSlotNeverOverlap() async throws {
        let count = 2_000
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            queues: { one: { maxConcurrent: 1 } }
            tasks:
              list: { type: command, argv: [seq, 1, \(count)] }
              each: { type: sleep, forEach: { from: list }, duration: 1ms, queue: one }
            """)
        let result = try await Child.runFlowrun(
            ["flow.yaml", "--no-progress", "--report", "report.json"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try ReportView(scratch.path("report.json"))
        let items = report.nodes.filter { $0["task"] as? String == "each" }
        #expect(items.map { $0["id"] as? String } == (1...count).map { "each[\($0)]" })
        #expect(items.allSatisfy { $0["status"] as? String == "succeeded" })
        let attempts = try items.flatMap { node in
            let spans = try #require(node["spans"] as? [[String: Any]], "\(node["id"] ?? "?") has no spans")
            return try spans.map { span in
                Attempt(
                    node: node["id"] as? String ?? "?", start: try #require(span["start"] as? Double),
                    end: try #require(span["end"] as? Double), lane: try #require(span["lane"] as? Int))
            }
        }.sorted { $0.start < $1.start }
        #expect(attempts.count == count)
        #expect(attempts.filter { $0.lane != 0 }.map(\.node) == [])
        let overlapping = zip(attempts, attempts.dropFirst()).filter { $1.start < $0.end }
        #expect(overlapping.map { "\($0.node) and \($1.node)" } == [], "attempts overlap on a queue of one slot")
    }
}
