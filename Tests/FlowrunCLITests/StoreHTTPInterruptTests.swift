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
        // The server's own thread sends the SIGINT when the revalidation arrives: a test task waiting for it can
        // be held off the cooperative pool for minutes in a full parallel run, past the revalidation's deadline.
        let interrupt = Mutex<(child: Child?, sent: ContinuousClock.Instant?)>((nil, nil))
        let server = try LocalHTTPServer([
            "/tagged.jpg": .handler { request in
                guard holding.withLock({ $0 }) else { return tagged.reply(request) }
                if request.header("If-None-Match") == "\"v1\"" {
                    interrupt.withLock { state in
                        guard state.sent == nil, let child = state.child else { return }
                        state.sent = ContinuousClock.now
                        child.signal(SIGINT)
                    }
                }
                return .stall
            }
        ])
        defer { server.stop() }
        try writeWorkflow([server.urlString("/tagged.jpg")])
        let (first, _) = try await run("first.json")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let journal = URL(fileURLWithPath: scratch.path(".flowrun/photos.yaml.journal"))
        let recorded = try Data(contentsOf: journal)

        // The child is known to the handler before it can ask: it is stored under the lock the handler takes.
        let child = try interrupt.withLock { state in
            holding.withLock { $0 = true }
            let child = try Child.flowrun(["photos.yaml", "--no-progress", "--report", "second.json"], in: scratch.url)
            state.child = child
            return child
        }
        let result = try #require(await child.wait(timeout: .seconds(1_200)))
        let sent = try #require(
            interrupt.withLock { $0.sent },
            "the revalidation never reached the server: \(result.stdout)\(result.stderr)")
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
