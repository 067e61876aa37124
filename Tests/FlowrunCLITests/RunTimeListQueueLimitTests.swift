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

    /// Also while the items stream: the producer prints half the list, waits until the first item has run, then
    /// prints the rest, so the items run in batches beside it, on the same queue.
    @Test(.timeLimit(.minutes(10)), arguments: [false, true])
    func twoThousandItemsOnAQueueOfOneSlotNeverOverlap(streaming: Bool) async throws {
        let count = 2_000
        let producer =
            streaming
            ? #"[sh, -c, "seq 1 1000; \#(StreamingProducer.waitFor("done/1")); seq 1001 \#(count)"]"#
            : "[seq, 1, \(count)]"
        let item =
            streaming
            ? #"type: command, argv: [touch, "done/${item}"]"# : "type: sleep, duration: 1ms"
        try FileManager.default.createDirectory(atPath: scratch.path("done"), withIntermediateDirectories: true)
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            queues: { one: { maxConcurrent: 1 } }
            tasks:
              list: { type: command, argv: \(producer) }
              each: { \(item), forEach: { from: list }, queue: one }
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
        if streaming {
            let producerEnd = try #require(
                (report.node("list")?["spans"] as? [[String: Any]])?.last?["end"] as? Double)
            #expect(try #require(attempts.first { $0.node == "each[1]" }).start < producerEnd)
        }
    }
}
