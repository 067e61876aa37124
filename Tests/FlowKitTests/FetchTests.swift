import FlowKitTesting
import Foundation
// `Value.map` holds an OrderedDictionary; FlowKit depends on swift-collections, so the module is built.
import OrderedCollections
import TestSupport
import Testing

@testable import FlowKit

/// `fetch` against a ``LocalHTTPServer`` per test (ephemeral port, so the suite runs in parallel) and against
/// temporary files.
@Suite struct FetchTests {
    // MARK: Helpers

    private func fetch(
        _ url: String, maxBytes: Int? = nil, headers: Value? = nil, directory: String = "."
    ) -> FetchOperation {
        // The tests stall servers on purpose and end the stalls themselves: the default idle timeout (1 minute)
        // must not end them first on a machine busy enough to hold a test back that long.
        var values: [String: Value] = ["url": .string(url), "idleTimeout": .string("1h")]
        if let maxBytes { values["maxBytes"] = .int(maxBytes) }
        if let headers { values["headers"] = headers }
        let context = NodeContext(
            nodeID: "fetch", typeName: "fetch", parameters: ParameterValues(values), workflowDirectory: directory)
        return FetchOperation(context: context)
    }

    private func isCancelled(_ outcome: FlowOperation.Outcome?) -> Bool {
        if case .cancelled? = outcome { return true }
        return false
    }

    // MARK: HTTP success

    @Test func fetches200Body() async throws {
        let body = LocalHTTPServer.patternBytes(100_000)
        let server = try LocalHTTPServer(["/photo.jpg": .ok(body)])
        defer { server.stop() }
        let op = fetch(server.urlString("/photo.jpg"))
        await run(op)
        let payload = try #require(op.providedData, "outcome: \(String(describing: op.outcome))")
        #expect(payload.bytes == body)
        #expect(payload.source == server.urlString("/photo.jpg"))
        #expect(server.requests.first?.header("User-Agent") == "flowrun")
    }

    @Test func fetchesEmptyBody() async throws {
        let server = try LocalHTTPServer(["/empty": .ok(Data())])
        defer { server.stop() }
        let op = fetch(server.urlString("/empty"))
        await run(op)
        #expect(try #require(op.providedData).bytes.isEmpty)
    }

    @Test func chunkedBodyWithinLimit() async throws {
        let server = try LocalHTTPServer(["/chunked": .stream(byteCount: 300_000, chunked: true)])
        defer { server.stop() }
        let op = fetch(server.urlString("/chunked"), maxBytes: 300_000)
        await run(op)
        #expect(try #require(op.providedData).bytes == LocalHTTPServer.patternBytes(300_000))
    }

    @Test func sendsHeaders() async throws {
        let server = try LocalHTTPServer(["/h": .ok(Data("ok".utf8))])
        defer { server.stop() }
        let headers = Value.map(
            ["X-Token": .string("s3cret"), "Accept": .string("image/jpeg"), "User-Agent": .string("me")])
        let op = fetch(server.urlString("/h"), headers: headers)
        await run(op)
        #expect(op.providedData != nil)
        let request = try #require(server.requests(to: "/h").first)
        #expect(request.method == "GET")
        #expect(request.header("x-token") == "s3cret")
        #expect(request.header("Accept") == "image/jpeg")
        #expect(request.header("User-Agent") == "me")
    }

    // MARK: HTTP status

    @Test(arguments: [(404, "Not Found"), (500, "Internal Server Error"), (503, "Service Unavailable")])
    func errorStatusFails(status: Int, reason: String) async throws {
        let server = try LocalHTTPServer(["/x": .status(status, body: Data("nope".utf8))])
        defer { server.stop() }
        let url = server.urlString("/x")
        let failure = try #require(failureOf(await run(fetch(url))))
        #expect(failure.code == .http)
        #expect(failure.message == "HTTP \(status) \(reason) for \(url)")
    }

    @Test func failsThenSucceedsAcrossAttempts() async throws {
        // The runner retries with a fresh operation; the server's counter serves 503 twice, then 200.
        let server = try LocalHTTPServer(["/flaky": .failing(times: 2, then: .ok(Data("finally".utf8)))])
        defer { server.stop() }
        for _ in 0..<2 {
            #expect(failureOf(await run(fetch(server.urlString("/flaky"))))?.code == .http)
        }
        let op = fetch(server.urlString("/flaky"))
        await run(op)
        #expect(op.providedData?.bytes == Data("finally".utf8))
        #expect(server.requests(to: "/flaky").count == 3)
    }

    // MARK: Redirects

    @Test func followsRedirects() async throws {
        let server = try LocalHTTPServer([
            "/old": .redirect(to: "/older", status: 301),
            "/older": .redirect(to: "", status: 307),  // replaced below: needs the port
            "/new": .ok(Data("moved".utf8)),
        ])
        defer { server.stop() }
        server.route("/older", .redirect(to: server.urlString("/new"), status: 307))
        let op = fetch(server.urlString("/old"))
        await run(op)
        #expect(op.providedData?.bytes == Data("moved".utf8), "outcome: \(String(describing: op.outcome))")
        #expect(op.providedData?.source == server.urlString("/old"))
        #expect(server.requests.map(\.path) == ["/old", "/older", "/new"])
    }

    @Test func followsExactlyMaxRedirects() async throws {
        let hops = FetchTask.maxRedirects
        var routes: [String: LocalHTTPServer.Reply] = ["/hop\(hops)": .ok(Data("end".utf8))]
        for hop in 0..<hops { routes["/hop\(hop)"] = .redirect(to: "/hop\(hop + 1)") }
        let server = try LocalHTTPServer(routes)
        defer { server.stop() }
        let op = fetch(server.urlString("/hop0"))
        await run(op)
        #expect(op.providedData?.bytes == Data("end".utf8), "outcome: \(String(describing: op.outcome))")
    }

    @Test func credentialsAreNotSentToAnotherHost() async throws {
        let server = try LocalHTTPServer(["/b": .ok(Data("ok".utf8))])
        defer { server.stop() }
        // Same server, but `localhost` is another host name than `127.0.0.1` as far as the URL goes.
        server.route("/a", .redirect(to: "http://localhost:\(server.port)/b"))
        server.route("/same", .redirect(to: "/b"))
        let headers = Value.map(["Authorization": .string("Bearer t0ken"), "X-Trace": .string("42")])
        await run(fetch(server.urlString("/a"), headers: headers))
        await run(fetch(server.urlString("/same"), headers: headers))
        let hops = server.requests(to: "/b")
        try #require(hops.count == 2)
        let crossHost = try #require(hops.first { $0.header("Host")?.hasPrefix("localhost") == true })
        let sameHost = try #require(hops.first { $0.header("Host")?.hasPrefix("127.0.0.1") == true })
        #expect(crossHost.header("Authorization") == nil)
        #expect(crossHost.header("X-Trace") == "42")
        #expect(sameHost.header("Authorization") == "Bearer t0ken")
    }

    @Test func redirectLoopFails() async throws {
        let server = try LocalHTTPServer(["/loop": .redirect(to: "/loop")])
        defer { server.stop() }
        let failure = try #require(failureOf(await run(fetch(server.urlString("/loop")))))
        #expect(failure.code == .http)
        #expect(failure.message.contains("too many redirects"))
        #expect(failure.message.contains("more than \(FetchTask.maxRedirects)"))
        // The first request plus the redirects followed; the one over the bound is not.
        #expect(server.requests(to: "/loop").count == FetchTask.maxRedirects + 1)
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x"])
    func redirectToNonHTTPSchemeIsRefused(location: String) async throws {
        let server = try LocalHTTPServer(["/sneaky": .redirect(to: location)])
        defer { server.stop() }
        let failure = try #require(failureOf(await run(fetch(server.urlString("/sneaky")))))
        #expect(failure.code == .unsupported)
        #expect(failure.message.contains(location))
        #expect(failure.message.contains("only http and https redirects are followed"))
        #expect(server.requests.count == 1)
    }

    // MARK: Size limits

    // The size tests pace the server (64 KiB per millisecond, about 64 MB/s) like a network link. Unpaced
    // loopback data keeps corelibs' session work queue busy, and `URLSessionTask.cancel()` only takes effect
    // when that queue drains: the node still finishes at once, but the server would go on sending.
    @Test func oversizedStreamStopsEarly() async throws {
        let total = 50 << 20
        let server = try LocalHTTPServer(["/huge": .stream(byteCount: total, chunked: true, pause: .milliseconds(1))])
        defer { server.stop() }
        let failure = try #require(failureOf(await run(fetch(server.urlString("/huge"), maxBytes: 1024))))
        #expect(failure.code == .tooLarge)
        #expect(failure.message.contains("more than maxBytes (1024 bytes)"))
        // Once the server has seen the client hang up, count what it sent.
        #expect(await waitUntil(.seconds(20)) { server.openConnections == 0 })
        #expect(server.bodyBytesSent("/huge") < total / 2, "the transfer was not stopped early")
    }

    @Test func oversizedContentLengthFailsBeforeTheBody() async throws {
        let total = 50 << 20
        let server = try LocalHTTPServer(["/big": .stream(byteCount: total, pause: .milliseconds(1))])
        defer { server.stop() }
        let failure = try #require(failureOf(await run(fetch(server.urlString("/big"), maxBytes: 1024))))
        #expect(failure.code == .tooLarge)
        #expect(failure.message.contains("\(total) bytes (Content-Length)"))
        // Once the server has seen the client hang up, count what it sent.
        #expect(await waitUntil(.seconds(20)) { server.openConnections == 0 })
        #expect(server.bodyBytesSent("/big") < total / 2)
    }

    @Test func bodyOfExactlyMaxBytesIsAccepted() async throws {
        let server = try LocalHTTPServer(["/edge": .stream(byteCount: 4096, chunked: true)])
        defer { server.stop() }
        let op = fetch(server.urlString("/edge"), maxBytes: 4096)
        await run(op)
        #expect(op.providedData?.bytes.count == 4096)
    }

    // MARK: Broken transfers

    @Test func truncatedBodyFails() async throws {
        let server = try LocalHTTPServer(["/short": .truncated(declaredLength: 10_000, body: Data(count: 100))])
        defer { server.stop() }
        let url = server.urlString("/short")
        let failure = try #require(failureOf(await run(fetch(url))))
        #expect(failure.code == .network)
        #expect(failure.message.contains(url))
    }

    @Test(arguments: [Data(), Data("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\nabc".utf8)])
    func connectionResetFails(prefix: Data) async throws {
        let server = try LocalHTTPServer(["/reset": .reset(afterSending: prefix)])
        defer { server.stop() }
        let url = server.urlString("/reset")
        let failure = try #require(failureOf(await run(fetch(url))))
        #expect(failure.code == .network)
        #expect(failure.message.contains(url))
    }

    @Test func connectionRefusedFails() async throws {
        let closed = try ClosedPort()
        let url = closed.urlString("/gone")
        let failure = try #require(failureOf(await run(fetch(url))))
        #expect(failure.code == .network)
        #expect(failure.message.contains("connection refused"))
        #expect(failure.message.contains(url))
    }

    // MARK: Cancellation

    @Test func stalledResponseIsCancelledByTimeout() async throws {
        let server = try LocalHTTPServer(["/stall": .stallAfterHeaders()])
        defer { server.stop() }
        let op = fetch(server.urlString("/stall"))
        let queue = OperationQueue()
        queue.addOperation(op)
        #expect(await waitUntil(.seconds(20)) { !server.requests(to: "/stall").isEmpty })
        let cancelled = ContinuousClock.now
        op.cancel(reason: .timedOut(.milliseconds(200)))
        #expect(await waitUntil(.seconds(20)) { op.isFinished })
        #expect(ContinuousClock.now - cancelled < promptly)
        #expect(isCancelled(op.outcome))
        #expect(op.cancellationReason == .timedOut(.milliseconds(200)))
    }

    @Test func cancelMidTransfer() async throws {
        let server = try LocalHTTPServer([
            "/partial": .stallAfterHeaders(declaredLength: 1 << 20, body: LocalHTTPServer.patternBytes(64 * 1024))
        ])
        defer { server.stop() }
        let op = fetch(server.urlString("/partial"))
        let queue = OperationQueue()
        queue.addOperation(op)
        #expect(await waitUntil(.seconds(20)) { !server.requests(to: "/partial").isEmpty })
        try await Task.sleep(for: .milliseconds(50))  // let part of the body arrive
        let cancelled = ContinuousClock.now
        op.cancel()
        #expect(await waitUntil(.seconds(20)) { op.isFinished })
        #expect(ContinuousClock.now - cancelled < promptly)
        #expect(isCancelled(op.outcome))
        #expect(op.providedData == nil)
    }

    @Test func delayedReplyArrives() async throws {
        let server = try LocalHTTPServer(["/late": .delayed(.milliseconds(100), .ok(Data("late".utf8)))])
        defer { server.stop() }
        let started = ContinuousClock.now
        let op = fetch(server.urlString("/late"))
        await run(op)
        #expect(op.providedData?.bytes == Data("late".utf8))
        #expect(ContinuousClock.now - started >= .milliseconds(100))
    }

    @Test func stoppingTheServerEndsAStalledFetch() async throws {
        let server = try LocalHTTPServer(["/stall": .stallAfterHeaders(declaredLength: 500, body: Data(count: 10))])
        let op = fetch(server.urlString("/stall"))
        let queue = OperationQueue()
        queue.addOperation(op)
        #expect(await waitUntil(.seconds(20)) { !server.requests(to: "/stall").isEmpty })
        let stopping = ContinuousClock.now
        server.stop()
        #expect(ContinuousClock.now - stopping < promptly)
        #expect(await waitUntil(.seconds(20)) { op.isFinished })
        let failure = try #require(failureOf(op.outcome))
        #expect(failure.code == .network)
        #expect(failure.message.contains("truncated"))
    }

    @Test func cancelBeforeStartNeverConnects() async throws {
        let server = try LocalHTTPServer(["/never": .ok(Data("x".utf8))])
        defer { server.stop() }
        let op = fetch(server.urlString("/never"))
        op.cancel()
        await run(op)
        #expect(isCancelled(op.outcome))
        #expect(server.requests.isEmpty)
    }

    // MARK: Files

    @Test func readsPathRelativeToWorkflowDirectory() async throws {
        let directory = try TemporaryFolder()
        let bytes = LocalHTTPServer.patternBytes(3000)
        try directory.write("photos/1.jpg", bytes)
        let op = fetch("photos/1.jpg", directory: directory.path)
        await run(op)
        let payload = try #require(op.providedData, "outcome: \(String(describing: op.outcome))")
        #expect(payload.bytes == bytes)
        #expect(payload.source == "photos/1.jpg")
    }

    @Test func readsFileURL() async throws {
        let directory = try TemporaryFolder()
        try directory.write("a b.bin", Data("file url".utf8))
        let url = URL(fileURLWithPath: directory.path + "/a b.bin").absoluteString  // percent-encoded space
        let op = fetch(url, directory: "/nonexistent")
        await run(op)
        #expect(op.providedData?.bytes == Data("file url".utf8), "outcome: \(String(describing: op.outcome))")
        #expect(op.providedData?.source == url)
    }

    @Test func missingFileFailsWithPath() async throws {
        let directory = try TemporaryFolder()
        let failure = try #require(failureOf(await run(fetch("photos/missing.jpg", directory: directory.path))))
        #expect(failure.code == .io)
        #expect(failure.message.contains("photos/missing.jpg"))
        #expect(failure.message.contains(directory.path))
    }

    @Test func aMissingFileSuggestsTheClosestNameInItsFolder() async throws {
        let directory = try TemporaryFolder()
        try directory.write("photos/wine.jpg", Data("jpeg".utf8))
        try directory.write("photos/sunset.jpg", Data("jpeg".utf8))
        let misnamed = try #require(failureOf(await run(fetch("photos/Wine.JPG", directory: directory.path))))
        #expect(misnamed.message.hasSuffix("(did you mean 'wine.jpg'?)"), "\(misnamed.message)")
        let unrelated = try #require(failureOf(await run(fetch("photos/zzzzzz.png", directory: directory.path))))
        #expect(!unrelated.message.contains("did you mean"), "\(unrelated.message)")
        let noFolder = try #require(failureOf(await run(fetch("nowhere/wine.jpg", directory: directory.path))))
        #expect(!noFolder.message.contains("did you mean"), "\(noFolder.message)")
    }

    @Test func fileLargerThanMaxBytesFails() async throws {
        let directory = try TemporaryFolder()
        try directory.write("big.bin", Data(count: 2048))
        let failure = try #require(failureOf(await run(fetch("big.bin", maxBytes: 1024, directory: directory.path))))
        #expect(failure.code == .tooLarge)
        #expect(failure.message.contains("2048 bytes"))
    }

    @Test func directoryIsNotAFile() async throws {
        let directory = try TemporaryFolder()
        let failure = try #require(failureOf(await run(fetch(directory.path))))
        #expect(failure.code == .io)
        #expect(failure.message == "'\(directory.path)' is a directory, not a file")
    }

    /// A FIFO is refused at once, not waited on for a writer that never comes (the node would hang until its
    /// timeout).
    @Test func aFIFOIsRefusedWithoutWaiting() async throws {
        let directory = try TemporaryFolder()
        #expect(mkfifo(directory.path + "/pipe", 0o600) == 0)
        let failure = try #require(failureOf(await run(fetch("pipe", directory: directory.path))))
        #expect(failure.code == .io)
        #expect(failure.message == "cannot read 'pipe' (\(directory.path)/pipe): it is a FIFO, not a regular file")
    }

    @Test(arguments: ["ftp://example.org/a.jpg", "file://otherhost/a.jpg"])
    func unsupportedSourcesFail(url: String) async throws {
        let failure = try #require(failureOf(await run(fetch(url))))
        #expect(failure.code == .unsupported)
        #expect(failure.message.contains(url))
    }
}
