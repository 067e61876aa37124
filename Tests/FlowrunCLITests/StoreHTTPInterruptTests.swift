import FlowKitTesting
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C while the store asks the server whether a recorded download is still current, before the run starts.
extension StoreHTTPTests {
    /// The server holds the conditional GET until told otherwise, so the revalidation is in flight when SIGINT
    /// comes: flowrun exits 130 at once with a message, the journal is byte for byte what it was, and the lock is
    /// free (the next run, answered 304, finds everything cached).
    @Test func aCtrlCDuringTheRevalidationExits130AndLeavesTheStoreAsItWas() async throws {
        let tagged = Resource(Version(body: try Fixtures.photo("wine"), etag: "\"v1\""))
        let holding = Mutex(false)
        let server = try LocalHTTPServer([
            "/tagged.jpg": .handler { request in
                holding.withLock { $0 } ? .stall : tagged.reply(request)
            }
        ])
        defer { server.stop() }
        try writeWorkflow([server.urlString("/tagged.jpg")])
        let (first, _) = try await run("first.json")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let journal = URL(fileURLWithPath: scratch.path(".flowrun/photos.yaml.journal"))
        let recorded = try Data(contentsOf: journal)

        // Counted rather than assumed to be one: under load the first run's client may have asked twice.
        let askedBefore = server.requests(to: "/tagged.jpg").count
        holding.withLock { $0 = true }
        let child = try Child.flowrun(["photos.yaml", "--no-progress", "--report", "second.json"], in: scratch.url)
        // A hang guard, not a timing: in a full parallel run on 2 cores a child has taken over 300 s to start.
        let deadline = ContinuousClock.now + .seconds(1_200)
        while server.requests(to: "/tagged.jpg").count <= askedBefore, child.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(
            server.requests(to: "/tagged.jpg").dropFirst(askedBefore).first?.header("If-None-Match") == "\"v1\"",
            """
            the revalidation never reached the server (asked \(server.requests(to: "/tagged.jpg").count) times, \
            \(askedBefore) before; running: \(child.isRunning)): \(child.stdoutSoFar)\(child.stderrSoFar)
            """)
        let sent = ContinuousClock.now
        child.signal(SIGINT)
        let result = try #require(await child.wait(timeout: .seconds(600)))
        #expect(try #require(child.exitedAt) - sent < .seconds(60))
        #expect(result.status == 130 && !result.terminatedBySignal, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("interrupted before the run started"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("second.json")))
        #expect(try Data(contentsOf: journal) == recorded, "the journal changed")

        holding.withLock { $0 = false }
        let (third, report) = try await run("third.json")
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        #expect(Set(statuses(report).values) == ["cached"], "\(third.stdout)\(third.stderr)")
    }
}
