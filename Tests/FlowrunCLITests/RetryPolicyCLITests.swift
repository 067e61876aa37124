import FlowKitTesting
import Foundation
import TestSupport
import Testing

/// The retry policy through the built `flowrun`, against a local server: what cannot change is not retried,
/// what may is, and a server's `Retry-After` is the wait (read from the report's attempt spans).
@Suite struct RetryPolicyCLITests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    @Test func onlyWhatCanSucceedIsRetriedAndRetryAfterIsHonoured() throws {
        let server = try LocalHTTPServer([
            "/missing": .status(404),
            "/flaky": .failing(times: 1, with: .status(503), then: .ok(Data("ok".utf8))),
            "/busy": .failing(times: 1, with: .status(429, headers: [.init("Retry-After", "1")]), then: .ok(Data())),
        ])
        defer { server.stop() }
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              missing: { type: fetch, url: "\(server.urlString("/missing"))", retries: 3 }
              flaky: { type: fetch, url: "\(server.urlString("/flaky"))", retries: 3 }
              busy: { type: fetch, url: "\(server.urlString("/busy"))", retries: 3, timeout: 20s }
            """)
        let result = try Flowrun.run(["flow.yaml", "--report", "run.json"], in: scratch.url)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let report = try ReportView(scratch.path("run.json"))
        #expect(report.attempts("missing") == 1)
        #expect(report.cause("missing").contains("HTTP 404 Not Found"))
        #expect(report.attempts("flaky") == 2)
        #expect(report.status("flaky") == "succeeded")
        #expect(report.attempts("busy") == 2)
        #expect(report.status("busy") == "succeeded")
        let spans = try #require(report.node("busy")?["spans"] as? [[String: Any]])
        let firstEnd = try #require(spans.first?["end"] as? Double)
        let secondStart = try #require(spans.last?["start"] as? Double)
        #expect(secondStart - firstEnd >= 0.95, "waited \(secondStart - firstEnd) s for Retry-After: 1")
        #expect(secondStart - firstEnd < 10)
    }
}
