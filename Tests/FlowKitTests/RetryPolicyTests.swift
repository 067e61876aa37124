import FlowKitTesting
import Foundation
import TestSupport
import Testing

@testable import FlowKit

/// Retries only for what another attempt can change: `fetch` against a ``LocalHTTPServer``, delays read from a
/// ``ManualClock`` (what the runner scheduled), never from the wall clock.
@Suite struct RetryPolicyTests {
    private func start(_ yaml: String, clock: ManualClock) throws -> TestWorkflow.BackgroundRun {
        let plan = try TestWorkflow.plan(yaml, registry: .builtIn)
        return TestWorkflow.BackgroundRun(
            plan: plan, options: RunOptions(clock: clock, retry: RetryPolicy(baseDelay: .seconds(2), jitter: false)))
    }

    private func fetch(_ url: String, _ extra: String = "") -> String {
        """
        version: 1
        tasks:
          get: { type: fetch, url: "\(url)", retries: 3\(extra) }
        """
    }

    @Test(arguments: [401, 403, 404, 410])
    func aClientErrorFailsAtOnce(status: Int) throws {
        let server = try LocalHTTPServer(["/x": .status(status)])
        defer { server.stop() }
        let report = try #require(try start(fetch(server.urlString("/x")), clock: ManualClock()).wait())
        #expect(report.status(of: "get") == .failed)
        #expect(report.node("get")?.attempts == 1)
        #expect(server.requests(to: "/x").count == 1)
    }

    @Test(arguments: [408, 425, 429, 500, 502, 503, 504])
    func aTransientStatusIsRetried(status: Int) throws {
        let server = try LocalHTTPServer(["/x": .failing(times: 1, with: .status(status), then: .ok(Data("ok".utf8)))])
        defer { server.stop() }
        let clock = ManualClock()
        let run = try start(fetch(server.urlString("/x")), clock: clock)
        #expect(clock.waitForScheduled(count: 1))
        #expect(clock.scheduledDelays == [.seconds(2)], "the runner's own backoff")
        clock.advance(by: .seconds(2))
        let report = try #require(run.wait())
        #expect(report.status(of: "get") == .succeeded)
        #expect(report.node("get")?.attempts == 2)
    }

    @Test func retryAfterReplacesTheBackoff() throws {
        let server = try LocalHTTPServer([
            "/x": .failing(times: 1, with: .status(429, headers: [.init("Retry-After", "1")]), then: .ok(Data()))
        ])
        defer { server.stop() }
        let clock = ManualClock()
        let run = try start(fetch(server.urlString("/x")), clock: clock)
        #expect(clock.waitForScheduled(count: 1))
        #expect(clock.scheduledDelays == [.seconds(1)])
        clock.advance(by: .seconds(1))
        #expect(try #require(run.wait()).node("get")?.attempts == 2)
    }

    @Test func retryAfterIsBoundedByTheTimeout() throws {
        let server = try LocalHTTPServer([
            "/x": .failing(times: 1, with: .status(503, headers: [.init("Retry-After", "3600")]), then: .ok(Data()))
        ])
        defer { server.stop() }
        let clock = ManualClock()
        let run = try start(fetch(server.urlString("/x"), ", timeout: 5s"), clock: clock)
        // The attempt's timeout timer is scheduled too: the retry is the delay that is not 5 s from the start.
        #expect(clock.waitForScheduled(count: 2))
        #expect(clock.scheduledDelays.contains(.seconds(5)))
        #expect(clock.scheduledDelays.allSatisfy { $0 <= .seconds(5) })
        clock.advance(by: .seconds(5))
        #expect(try #require(run.wait()).status(of: "get") == .succeeded)
    }

    @Test func retryOnWidensToAStatus() throws {
        let server = try LocalHTTPServer(["/x": .failing(times: 1, with: .status(404), then: .ok(Data()))])
        defer { server.stop() }
        let clock = ManualClock()
        let run = try start(fetch(server.urlString("/x"), ", retryOn: [transient, status: 404]"), clock: clock)
        #expect(clock.waitForScheduled(count: 1))
        clock.advance(by: .seconds(2))
        let report = try #require(run.wait())
        #expect(report.status(of: "get") == .succeeded)
        #expect(server.requests(to: "/x").count == 2)
    }

    @Test func retryOnNarrowsToAStatus() throws {
        let server = try LocalHTTPServer(["/x": .status(500)])
        defer { server.stop() }
        let yaml = fetch(server.urlString("/x"), ", retryOn: [status: [502, 503]]")
        let report = try #require(try start(yaml, clock: ManualClock()).wait())
        #expect(report.node("get")?.attempts == 1)
    }

    @Test func aMissingFileFailsAtOnceUnlessRetryOnAny() throws {
        let clock = ManualClock()
        let once = try #require(try start(fetch("no-such-file.jpg"), clock: clock).wait())
        #expect(once.node("get")?.attempts == 1)
        #expect(clock.scheduledDelays.isEmpty)
        let run = try start(fetch("no-such-file.jpg", ", retryOn: [any]"), clock: clock)
        #expect(clock.waitForScheduled(count: 1))
        clock.advance(by: .seconds(60))
        #expect(clock.waitForScheduled(count: 2))
        clock.advance(by: .seconds(60))
        #expect(clock.waitForScheduled(count: 3))
        clock.advance(by: .seconds(60))
        #expect(try #require(run.wait()).node("get")?.attempts == 4)
    }

    @Test func retryAfterReadsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPRetry.delay(retryAfter: " 120 ", now: now) == .seconds(120))
        #expect(HTTPRetry.delay(retryAfter: "Sun, 06 Nov 1994 08:50:07 GMT", now: now) == .seconds(30))
        #expect(HTTPRetry.delay(retryAfter: "Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
        #expect(HTTPRetry.delay(retryAfter: "soon", now: now) == nil)
        #expect(HTTPRetry.delay(retryAfter: "-1", now: now) == nil)
    }
}
