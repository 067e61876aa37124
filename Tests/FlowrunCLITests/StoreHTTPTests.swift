import FlowKitTesting
import Foundation
import Synchronization
import TestSupport
import Testing

/// Re-running http(s) sources through the built binary, against a ``LocalHTTPServer`` that serves versioned
/// photos and counts requests and body bytes: a 304 keeps everything cached and sends no body; without a
/// validator the body is hashed; a changed resource reruns its chain; a server gone on the rerun fails the fetch.
@Suite struct StoreHTTPTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    /// One photo as the server has it now, with the validators it sends.
    struct Version: Sendable {
        var body: Data
        var etag: String?
        var lastModified: String?
    }

    /// A resource whose version a test changes between runs; it answers conditional GETs as a server should.
    final class Resource: Sendable {
        let version: Mutex<Version>

        init(_ version: Version) {
            self.version = Mutex(version)
        }

        func change(to version: Version) { self.version.withLock { $0 = version } }

        func reply(_ request: RecordedRequest) -> LocalHTTPServer.Reply {
            let now = version.withLock { $0 }
            var headers: [LocalHTTPServer.HTTPHeader] = []
            if let etag = now.etag { headers.append(.init("ETag", etag)) }
            if let date = now.lastModified { headers.append(.init("Last-Modified", date)) }
            let sameTag = now.etag != nil && request.header("If-None-Match") == now.etag
            let sameDate =
                now.etag == nil && now.lastModified != nil && request.header("If-Modified-Since") == now.lastModified
            if sameTag || sameDate { return .status(304, headers: headers) }
            return .ok(now.body, headers: headers)
        }
    }

    /// A server with one route per resource.
    func serve(_ resources: [String: Resource]) throws -> LocalHTTPServer {
        var routes: [String: LocalHTTPServer.Reply] = [:]
        for (path, resource) in resources { routes[path] = .handler { resource.reply($0) } }
        return try LocalHTTPServer(routes)
    }

    /// fetch → decode → resize → write for each URL.
    func writeWorkflow(_ urls: [String]) throws {
        // Known by their position (`key: n`), as the URLs hold the server's port, which changes per test.
        let items = urls.enumerated().map { "{ n: \($0), url: \"\($1)\" }" }.joined(separator: ", ")
        try scratch.write(
            "photos.yaml",
            """
            version: 1
            name: photos
            tasks:
              fetch: { type: fetch, forEach: { list: [\(items)], key: n }, url: "${item.url}" }
              decode: { type: decode, dependsOn: fetch }
              thumb: { type: resize, width: 16, dependsOn: decode }
              save: { type: write, path: "out/${item.index}.png", dependsOn: thumb }
            """)
    }

    func run(_ report: String) async throws -> (Flowrun.Result, ReportView) {
        let result = try await Child.runFlowrun(
            ["photos.yaml", "--no-progress", "--report", report], in: scratch.url)
        return (result, try ReportView(scratch.path(report)))
    }

    func statuses(_ report: ReportView) -> [String: String] {
        Dictionary(uniqueKeysWithValues: report.ids.map { ($0, report.status($0) ?? "") })
    }

    func output(_ index: Int) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/\(index).png")))
    }

    @Test func aNotModifiedAnswerKeepsTheFetchAndEverythingDownstreamCachedAndSendsNoBody() async throws {
        let tagged = Resource(Version(body: try Fixtures.photo("wine"), etag: "\"v1\""))
        let dated = Resource(Version(body: try Fixtures.photo("sunset"), lastModified: "Mon, 02 Nov 2026 10:00:00 GMT"))
        let server = try serve(["/tagged.jpg": tagged, "/dated.jpg": dated])
        defer { server.stop() }
        try writeWorkflow([server.urlString("/tagged.jpg"), server.urlString("/dated.jpg")])

        let (first, firstReport) = try await run("first.json")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let bytesAfterFirst = server.bodyBytesSent("/tagged.jpg") + server.bodyBytesSent("/dated.jpg")
        #expect(bytesAfterFirst == (try Fixtures.photo("wine").count + Fixtures.photo("sunset").count))
        let written = try [output(0), output(1)]

        let (second, report) = try await run("second.json")
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("8 nodes: 8 cached"), "\(second.stdout)")
        #expect(Set(statuses(report).values) == ["cached"])
        // One conditional GET each, answered 304: not one body byte more.
        #expect(server.requests(to: "/tagged.jpg").last?.header("If-None-Match") == "\"v1\"")
        #expect(
            server.requests(to: "/dated.jpg").last?.header("If-Modified-Since") == "Mon, 02 Nov 2026 10:00:00 GMT")
        #expect(server.requests(to: "/tagged.jpg").count == 2 && server.requests(to: "/dated.jpg").count == 2)
        #expect(server.bodyBytesSent("/tagged.jpg") + server.bodyBytesSent("/dated.jpg") == bytesAfterFirst)
        #expect(try [output(0), output(1)] == written)
        // Keys recorded after the first download are the ones the rerun decides with.
        for id in report.ids { #expect(report.node(id)?["key"] as? String == firstReport.node(id)?["key"] as? String) }
    }

    @Test func anUnchangedResourceIsDownloadedAgainWhenAnOutputBelowItIsMissing() async throws {
        let tagged = Resource(Version(body: try Fixtures.photo("wine"), etag: "\"v1\""))
        let server = try serve(["/tagged.jpg": tagged])
        defer { server.stop() }
        try writeWorkflow([server.urlString("/tagged.jpg")])
        let (first, _) = try await run("first.json")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let written = try output(0)
        try FileManager.default.removeItem(atPath: scratch.path("out/0.png"))

        let (second, report) = try await run("second.json")
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(Set(statuses(report).values) == ["succeeded"], "\(second.stdout)")
        // The 304 confirmed the version; the body a 304 does not carry is then fetched in full.
        #expect(server.requests(to: "/tagged.jpg").map { $0.header("If-None-Match") } == [nil, "\"v1\"", nil])
        #expect(try output(0) == written)
    }

    @Test func withoutAValidatorTheBodyIsFetchedAndHashedAndOnlyAChangedBodyRerunsDownstream() async throws {
        let plain = Resource(Version(body: try Fixtures.photo("friends")))
        let server = try serve(["/plain.jpg": plain])
        defer { server.stop() }
        try writeWorkflow([server.urlString("/plain.jpg")])

        let (first, _) = try await run("first.json")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let size = try Fixtures.photo("friends").count

        let (second, report) = try await run("second.json")
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(Set(statuses(report).values) == ["cached"], "\(second.stdout)")
        #expect(server.requests(to: "/plain.jpg").count == 2)
        #expect(server.bodyBytesSent("/plain.jpg") == 2 * size, "the unchanged body is downloaded to be hashed")

        plain.change(to: Version(body: try Fixtures.photo("seeding")))
        let before = try output(0)
        let (third, changed) = try await run("third.json")
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        #expect(
            statuses(changed) == [
                "fetch[0]": "succeeded", "decode[0]": "succeeded", "thumb[0]": "succeeded",
                "save[0]": "succeeded",
            ])
        #expect(try output(0) != before)
    }

    @Test func aChangedResourceRerunsItsChainAndTheNewVersionIsReusedAfter() async throws {
        let changing = Resource(Version(body: try Fixtures.photo("wine"), etag: "\"v1\""))
        let steady = Resource(Version(body: try Fixtures.photo("sunset"), etag: "\"s1\""))
        let server = try serve(["/changing.jpg": changing, "/steady.jpg": steady])
        defer { server.stop() }
        try writeWorkflow([server.urlString("/changing.jpg"), server.urlString("/steady.jpg")])
        let (first, _) = try await run("first.json")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let before = try output(0)

        changing.change(to: Version(body: try Fixtures.photo("aitzgorri"), etag: "\"v2\""))
        let (second, report) = try await run("second.json")
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(
            statuses(report) == [
                "fetch[0]": "succeeded", "decode[0]": "succeeded", "thumb[0]": "succeeded", "save[0]": "succeeded",
                "fetch[1]": "cached", "decode[1]": "cached", "thumb[1]": "cached", "save[1]": "cached",
            ])
        #expect(try output(0) != before)

        let (third, again) = try await run("third.json")
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        #expect(Set(statuses(again).values) == ["cached"], "\(third.stdout)")
        #expect(server.requests(to: "/changing.jpg").last?.header("If-None-Match") == "\"v2\"")
    }

    @Test func aServerGoneOnTheRerunFailsTheFetchNamingTheCauseAndCachesNothingBelowIt() async throws {
        let tagged = Resource(Version(body: try Fixtures.photo("wine"), etag: "\"v1\""))
        let server = try serve(["/tagged.jpg": tagged])
        try writeWorkflow([server.urlString("/tagged.jpg")])
        let (first, _) = try await run("first.json")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        server.stop()

        let (second, report) = try await run("second.json")
        #expect(second.status == 1, "\(second.stdout)\(second.stderr)")
        #expect(report.status("fetch[0]") == "failed")
        #expect(report.cause("fetch[0]").contains("connection refused"), "\(report.cause("fetch[0]"))")
        for id in ["decode[0]", "thumb[0]", "save[0]"] {
            #expect(report.status(id) == "skipped", "\(id): \(report.status(id) ?? "")")
        }
    }
}
