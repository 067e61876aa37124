import FlowKit
import FlowKitTesting
import FlowS3
import Foundation
import TestSupport
import Testing

/// A store in a bucket whose server fails (SeaweedFS behind a relay that answers `503` once told to): at a run's
/// end, the run's records wait on its machine and go up with its next run; during a restore, the chain runs.
/// Nothing is lost, nothing is wrongly reused.
@Suite(.serialized, .enabled(if: SeaweedServer.unavailable == nil, Comment(rawValue: SeaweedServer.unavailable ?? "")))
struct BucketFaultTests {
    let scratch: Scratch
    let trust: BucketTrustTests

    init() throws {
        trust = try BucketTrustTests()
        scratch = trust.scratch
    }

    /// Starts the workflow of a checkout with the store at `s3://state/site`, through `proxy`.
    func start(_ machine: (folder: URL, environment: [String: String]), _ server: SeaweedServer, _ proxy: S3Proxy)
        throws -> Child
    {
        try Child.flowrun(
            ["flow.yaml", "--no-progress", "--state-dir", "s3://state/site"], in: machine.folder,
            environment: server.environment(port: proxy.port).merging(machine.environment) { $1 })
    }

    /// Runs it to its end: the result, and the summary without its duration.
    func run(_ machine: (folder: URL, environment: [String: String]), _ server: SeaweedServer, _ proxy: S3Proxy)
        async throws -> (result: Flowrun.Result, summary: String)
    {
        let result = try #require(await start(machine, server, proxy).wait(timeout: .seconds(1200)))
        let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return (result, last.replacing(#/ in [0-9.]+m?s$/#, with: ""))
    }

    /// `text` with the digests of files and the names of segments replaced.
    static func normalized(_ text: String) -> String {
        text.replacing(#/[0-9a-f]{64}/#, with: "SHA").replacing(#/[0-9]{20}-[0-9a-f]+\.journal/#, with: "SEGMENT")
    }

    /// What the S3 client says of a request the relay refused.
    static func refused(_ method: String, _ location: String) -> String {
        "S3 answered \(method) '\(location)' with an error (SlowDown, HTTP 503): Please reduce your request rate."
    }

    @Test func aServerThatFailsAtTheRunsEndLosesNothing() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let proxy = try S3Proxy(upstream: server.port)
        let ci = try trust.machine("ci")
        // A gate at the end: the run has pulled and written everything when it opens.
        try scratch.write(
            "ci/flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              save: { type: write, path: "out/${item.stem}.txt", dependsOn: read }
              gate: { type: command, gather: true, dependsOn: save, argv: [sh, -c, "touch started; until [ -e go ]; do sleep 0.02; done"] }

            """)
        let child = try start(ci, server, proxy)
        let started = await waitUntil(.seconds(1200)) {
            FileManager.default.fileExists(atPath: scratch.path("ci/started"))
        }
        #expect(started)
        proxy.refuse("")
        try scratch.write("ci/go", "")
        let failed = try #require(await child.wait(timeout: .seconds(1200)))
        #expect(failed.status == 0, "\(failed.stdout)\(failed.stderr)")
        #expect(
            Self.normalized(failed.stderr) == """
                warning: cannot upload 3 written files to s3://state/site/files/: \
                \(Self.refused("PUT", "s3://state/site/files/SHA")); other machines make them again
                warning: cannot upload this run's 7 records to s3://state/site: \
                \(Self.refused("PUT", "s3://state/site/journals/flow.yaml/SEGMENT")); they are kept on this machine \
                and go up with its next run on this store

                """, "\(failed.stderr)")
        #expect(try trust.keys(server, "site/journals/").isEmpty)
        #expect(pendingSegments("ci").count == 1)

        // The next run on the machine sends them first, with the files they name.
        proxy.refuse(nil)
        let (next, summary) = try await run(ci, server, proxy)
        #expect(next.status == 0 && next.stderr.isEmpty, "\(next.stdout)\(next.stderr)")
        #expect(summary == "7 nodes: 1 succeeded, 6 cached")
        #expect(try trust.keys(server, "site/files/").count == 3)
        #expect(pendingSegments("ci").isEmpty)

        try scratch.write("laptop/go", "")
        let laptop = try trust.machine("laptop")
        try scratch.write("laptop/flow.yaml", try String(contentsOfFile: scratch.path("ci/flow.yaml"), encoding: .utf8))
        let (fresh, freshSummary) = try await run(laptop, server, proxy)
        #expect(fresh.status == 0 && fresh.stderr.isEmpty, "\(fresh.stdout)\(fresh.stderr)")
        #expect(freshSummary == "7 nodes: 1 succeeded, 3 cached, 3 restored")
    }

    @Test func aRestoreThatFailsRunsTheChainAndWarns() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let proxy = try S3Proxy(upstream: server.port)
        #expect(try await run(try trust.machine("ci"), server, proxy).result.status == 0)

        proxy.refuse("/files/")
        let laptop = try trust.machine("laptop")
        let (result, summary) = try await run(laptop, server, proxy)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(summary == "6 nodes: 6 succeeded", "\(result.stdout)")
        let file = "s3://state/site/files/SHA"
        let missed = ["a", "b", "c"].map { "out/\($0).txt: cannot download \(file): \(Self.refused("GET", file))" }
        #expect(
            Self.normalized(result.stderr) == """
                warning: 3 written files cannot be restored from s3://state/site/files/, so their nodes run again: \
                \(missed.joined(separator: "; "))
                warning: cannot upload 3 written files to s3://state/site/files/: \(Self.refused("PUT", file)); other \
                machines make them again

                """, "\(result.stderr)")
        for name in ["a", "b", "c"] {
            #expect(
                try String(contentsOfFile: scratch.path("laptop/out/\(name).txt"), encoding: .utf8) == "photo \(name)\n"
            )
        }
    }

    /// A bucket over its quota (SeaweedFS makes it read-only, answering writes with `500 InternalError`): the run
    /// succeeds with its own outputs intact, its records wait, and go up once the bucket takes writes again.
    @Test func aBucketThatFillsIsAWarningAndTheRunsOutputsStay() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let proxy = try S3Proxy(upstream: server.port)
        try server.client.put(Data(repeating: 7, count: 3 << 20), at: S3Location(bucket: "state", key: "filler"))
        _ = try await server.shell("s3.bucket.quota -name=state -op=set -sizeMB=1")
        // The bucket's size reaches the master with the volume servers' heartbeats.
        var usage = ""
        let deadline = ContinuousClock.now + .seconds(1200)
        while ContinuousClock.now < deadline, !usage.contains("usage:3") {
            usage = try await server.shell("s3.bucket.list")
            if !usage.contains("usage:3") { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(usage.contains("quota:1048576"), "\(usage)")
        _ = try await server.shell("s3.bucket.quota.enforce -apply")

        let ci = try trust.machine("ci")
        let (full, summary) = try await run(ci, server, proxy)
        #expect(full.status == 0 && summary == "6 nodes: 6 succeeded", "\(full.stdout)\(full.stderr)")
        let lines = full.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(full.stderr)")
        #expect(lines.first?.hasPrefix("warning: cannot upload 3 written files to s3://state/site/files/: ") == true)
        #expect(
            lines.last?.hasSuffix("; they are kept on this machine and go up with its next run on this store") == true)
        for name in ["a", "b", "c"] {
            #expect(
                try String(contentsOfFile: scratch.path("ci/out/\(name).txt"), encoding: .utf8) == "photo \(name)\n")
        }
        #expect(try trust.keys(server, "site/").isEmpty)
        #expect(pendingSegments("ci").count == 1)

        _ = try await server.shell("s3.bucket.quota -name=state -op=remove")
        _ = try await server.shell("s3.bucket.quota.enforce -apply")
        let (next, nextSummary) = try await run(ci, server, proxy)
        #expect(next.status == 0 && next.stderr.isEmpty, "\(next.stdout)\(next.stderr)")
        #expect(nextSummary == "6 nodes: 6 cached")
        #expect(try trust.keys(server, "site/files/").count == 3)
        #expect(pendingSegments("ci").isEmpty)
    }

    /// A checkout that makes again what the bucket holds (`--no-restore`) asks nothing of `files/`: the records it
    /// pulled say the bucket has those copies.
    @Test func aCheckoutThatMakesWhatTheBucketHoldsUploadsNoFile() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let proxy = try S3Proxy(upstream: server.port)
        #expect(try await run(try trust.machine("ci"), server, proxy).result.status == 0)
        #expect(proxy.count("PUT", containing: "/files/") == 3)

        let laptop = try trust.machine("laptop")
        let child = try Child.flowrun(
            ["flow.yaml", "--no-progress", "--no-restore", "--state-dir", "s3://state/site"], in: laptop.folder,
            environment: server.environment(port: proxy.port).merging(laptop.environment) { $1 })
        let result = try #require(await child.wait(timeout: .seconds(1200)))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("6 nodes: 6 succeeded in "), "\(result.stdout)")
        #expect(proxy.count("PUT", containing: "/files/") == 3, "\(proxy.requests)")
        #expect(proxy.count("GET", containing: "/files/") == 0)
    }

    /// The segments waiting on a machine's cache folder.
    func pendingSegments(_ machine: String) -> [String] {
        let buckets = scratch.path("\(machine)-cache/flowrun/buckets")
        return ((try? FileManager.default.subpathsOfDirectory(atPath: buckets)) ?? []).filter {
            $0.contains("/pending/") && $0.hasSuffix(".journal")
        }
    }
}
