import FlowKitTesting
import Foundation
import TestSupport
import Testing

/// What `flowrun validate`, `run --dry-run` and `explain` say of an http(s) `fetch` the store has a result for,
/// through the built binary against a ``LocalHTTPServer``: without `--check-sources` they ask no server, keep
/// the key the store recorded and say the nodes are cached if the server confirms the version; with it they ask
/// as a run does. The same node shows the same key on every call.
@Suite struct DryRunSourcesTests {
    let scratch: Scratch
    let resource: StoreHTTPTests.Resource
    let server: LocalHTTPServer

    init() throws {
        scratch = try Scratch()
        resource = StoreHTTPTests.Resource(.init(body: try Fixtures.photo("wine"), etag: "\"v1\""))
        server = try LocalHTTPServer(["/photo.jpg": .handler { [resource] in resource.reply($0) }])
        try scratch.write(
            "photo.yaml",
            """
            version: 1
            name: photo
            tasks:
              fetch: { type: fetch, url: "\(server.urlString("/photo.jpg"))" }
              decode: { type: decode, dependsOn: fetch }
              save: { type: write, path: out/photo.png, dependsOn: decode }
            """)
    }

    static func golden(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens/\(name)")
    }

    /// Runs flowrun in the scratch folder; a failure is part of what the goldens show.
    func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        try await Child.runFlowrun(arguments, in: scratch.url)
    }

    /// The commands' outputs, each under the command line, with what differs between test runs replaced: the
    /// scratch folder, the server's port, the time of the recorded run, the keys (the URL is in them).
    func transcript(_ commands: [[String]]) async throws -> String {
        var text = ""
        for arguments in commands {
            let result = try await flowrun(arguments)
            text +=
                "$ flowrun \(arguments.joined(separator: " ")) (exit \(result.status))\n\(result.stdout)\(result.stderr)"
        }
        return
            text
            .replacingOccurrences(of: scratch.url.path, with: "SCRATCH")
            .replacingOccurrences(of: #"127\.0\.0\.1:[0-9]+"#, with: "127.0.0.1:PORT", options: .regularExpression)
            .replacingOccurrences(
                of: #"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"#, with: "RUN-TIME", options: .regularExpression
            )
            .replacingOccurrences(of: #"key [0-9a-f]{12}"#, with: "key KEY", options: .regularExpression)
    }

    func expectGolden(_ name: String, _ commands: [[String]]) async throws {
        let text = try await transcript(commands)
        if ProcessInfo.processInfo.environment["RECORD_GOLDENS"] != nil {
            try text.write(to: Self.golden(name), atomically: true, encoding: .utf8)
        }
        #expect(text == (try String(contentsOf: Self.golden(name), encoding: .utf8)))
    }

    func firstRun() async throws {
        let first = try await flowrun(["photo.yaml", "--no-progress", "--quiet"])
        try #require(first.status == 0, "\(first.stdout)\(first.stderr)")
    }

    @Test func withoutCheckSourcesADryRunAsksNoServerAndShowsTheRecordedKeyOnEveryCall() async throws {
        defer { server.stop() }
        try await firstRun()
        let requests = server.requests(to: "/photo.jpg").count

        let first = try await flowrun(["explain", "photo.yaml", "save"])
        let second = try await flowrun(["explain", "photo.yaml", "save"])
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        #expect(first.stdout == second.stdout)
        let fetch = try await flowrun(["explain", "photo.yaml", "fetch"])
        let fetchAgain = try await flowrun(["explain", "photo.yaml", "fetch"])
        #expect(fetch.stdout == fetchAgain.stdout)
        #expect(server.requests(to: "/photo.jpg").count == requests, "a dry run asks no server")

        // The server has another version by now: a dry run cannot know, and says so.
        resource.change(to: .init(body: try Fixtures.photo("sunset"), etag: "\"v2\""))
        try await expectGolden(
            "dry-run-http-unasked.txt",
            [
                ["validate", "photo.yaml"], ["run", "photo.yaml", "--dry-run"], ["explain", "photo.yaml", "save"],
                ["explain", "photo.yaml", "fetch"],
            ])
        #expect(server.requests(to: "/photo.jpg").count == requests, "a dry run asks no server")
    }

    @Test func checkSourcesAsksAsARunDoesAndAChangedResourceRunsItsChain() async throws {
        defer { server.stop() }
        try await firstRun()
        let requests = server.requests(to: "/photo.jpg").count

        try await expectGolden(
            "dry-run-http-confirmed.txt",
            [["validate", "photo.yaml", "--check-sources"], ["explain", "photo.yaml", "save", "--check-sources"]])
        #expect(server.requests(to: "/photo.jpg").count == requests + 2)
        #expect(server.requests(to: "/photo.jpg").last?.header("If-None-Match") == "\"v1\"")
        #expect(server.bodyBytesSent("/photo.jpg") == (try Fixtures.photo("wine")).count, "a 304 sends no body")

        resource.change(to: .init(body: try Fixtures.photo("sunset"), etag: "\"v2\""))
        let first = try await flowrun(["explain", "photo.yaml", "save", "--check-sources"])
        let second = try await flowrun(["explain", "photo.yaml", "save", "--check-sources"])
        #expect(first.stdout == second.stdout)
        try await expectGolden(
            "dry-run-http-changed.txt",
            [
                ["run", "photo.yaml", "--dry-run", "--check-sources"],
                ["explain", "photo.yaml", "save", "--check-sources"],
            ])

        // What the dry run said is what the run does.
        let run = try await flowrun(["photo.yaml", "--no-progress"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("3 nodes: 3 succeeded"), "\(run.stdout)")
    }

    @Test func checkSourcesWithTheServerGoneRunsTheFetchAndKeepsItsKeyFromCallToCall() async throws {
        defer { server.stop() }
        try await firstRun()
        server.stop()
        let first = try await flowrun(["explain", "photo.yaml", "save", "--check-sources"])
        let second = try await flowrun(["explain", "photo.yaml", "save", "--check-sources"])
        #expect(first.stdout == second.stdout)
        try await expectGolden(
            "dry-run-http-unreachable.txt",
            [["validate", "photo.yaml", "--check-sources"], ["explain", "photo.yaml", "save", "--check-sources"]])
    }

    @Test func aFetchNeverRunIsNewWithTheSameKeyOnEveryCall() async throws {
        defer { server.stop() }
        let first = try await flowrun(["explain", "photo.yaml", "save"])
        let second = try await flowrun(["explain", "photo.yaml", "save"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == second.stdout)
        try await expectGolden(
            "dry-run-http-new.txt", [["explain", "photo.yaml", "save"], ["explain", "photo.yaml", "fetch"]])
        #expect(server.requests(to: "/photo.jpg").isEmpty, "a dry run asks no server")
    }

    @Test func checkSourcesBelongsToDryRuns() async throws {
        defer { server.stop() }
        for arguments in [
            ["photo.yaml", "--check-sources"], ["validate", "photo.yaml", "--check-sources", "--no-cache"],
        ] {
            let result = try await flowrun(arguments)
            #expect(result.status == 2, "\(result.stdout)")
            #expect(result.stderr.contains("--check-sources"), "\(result.stderr)")
        }
        #expect(server.requests(to: "/photo.jpg").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")))
    }
}
