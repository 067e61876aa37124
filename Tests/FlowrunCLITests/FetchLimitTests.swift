import FlowKitTesting
import Foundation
import TestSupport
import Testing

/// Servers that trickle or send giant headers: the fetch fails in bounded time with the cause named.
@Suite struct FetchLimitTests {
    /// A server sending a byte every 200 ms never lets an idle timeout fire (each byte restarts it); with
    /// `idleTimeout: 2s` the node fails after about 2 s for sending less than 1 KiB in that time, while a
    /// fast body under the same setting succeeds.
    @Test func aTricklingServerFailsTheNodeAfterItsIdleTimeout() async throws {
        let server = try LocalHTTPServer([
            "/trickle": .stream(byteCount: 10_000, pause: .milliseconds(200), writeSize: 1),
            "/fast": .stream(byteCount: 300_000),
        ])
        let scratch = try Scratch()
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              slow: { type: fetch, url: "\(server.urlString("/trickle"))", idleTimeout: 2s }
              quick: { type: fetch, url: "\(server.urlString("/fast"))", idleTimeout: 2s }
            """)
        let started = ContinuousClock.now
        // --verbose: the table shows the quick fetch succeeded beside the failure.
        let result = try await Child.runFlowrun(["flow.yaml", "--no-progress", "--verbose"], in: scratch.url)
        // The trickle would take 2,000 s; a bound far above any machine's load shows the idle timeout ended it (in
        // a full parallel run on 2 cores a child has taken over 300 s to get its turn).
        #expect(ContinuousClock.now - started < .seconds(1_200))
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        let failure = try #require(
            result.stdout.split(separator: "\n").first { $0.hasPrefix("flow.yaml:3:3: error: slow failed: ") },
            "\(result.stdout)")
        #expect(
            failure.wholeMatch(
                of:
                    #/flow\.yaml:3:3: error: slow failed: http://127\.0\.0\.1:\d+/trickle sent \d+ bytes in 2s, less than 1024 bytes: the server stalls \(raise idleTimeout to wait longer\)/#
            ) != nil, "\(failure)")
        #expect(result.stdout.contains("\nquick  succeeded "), "\(result.stdout)")
    }

    /// A response header of 64 MiB is named as what it is, not "Out of memory".
    @Test func aGiantResponseHeaderIsNamed() async throws {
        let big = LocalHTTPServer.HTTPHeader("X-Big", String(repeating: "a", count: 64 << 20))
        let server = try LocalHTTPServer(["/big": .status(200, headers: [big], body: Data("ok".utf8))])
        let scratch = try Scratch()
        try scratch.write(
            "flow.yaml", "version: 1\ntasks:\n  get: { type: fetch, url: \"\(server.urlString("/big"))\" }\n")
        let result = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "error: get failed: could not fetch \(server.urlString("/big")): the response headers are too large "
                    + "(libcurl reads at most 100 KB of them) (URLError -1)\n"), "\(result.stdout)")
    }
}
