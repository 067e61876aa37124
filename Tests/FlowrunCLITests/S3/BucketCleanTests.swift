import FlowKit
import FlowKitTesting
import FlowS3
import Foundation
import Testing

/// `flowrun cache clean` on a store in a bucket (SeaweedFS): its segments are replaced by one that holds what is
/// kept, then the blobs and file copies no record points at go once they are older than `--grace`.
@Suite(.serialized, .enabled(if: SeaweedServer.unavailable == nil, Comment(rawValue: SeaweedServer.unavailable ?? "")))
struct BucketCleanTests {
    let scratch: Scratch
    let trust: BucketTrustTests

    init() throws {
        trust = try BucketTrustTests()
        scratch = trust.scratch
    }

    /// `flowrun cache clean` with the store at `s3://state/site`; its output with the journal's size (in KiB)
    /// and the run's time replaced.
    func clean(
        _ machine: (folder: URL, environment: [String: String]), _ server: SeaweedServer, _ flags: [String] = []
    ) async throws -> Flowrun.Result {
        var result = try await BucketStoreCLITests.run(
            ["cache", "clean", "flow.yaml", "--state-dir", "s3://state/site"] + flags, on: machine, server)
        result.stdout = result.stdout.replacing(#/run of [0-9T:-]+Z/#, with: "run of TIME")
            .replacing(#/journal\), [0-9.]+ KiB/#, with: "journal), SIZE")
        return result
    }

    /// A checkout whose `in/a.txt` says `text`.
    func machine(_ name: String, a text: String) throws -> (folder: URL, environment: [String: String]) {
        let machine = try trust.machine(name)
        try scratch.write("\(name)/in/a.txt", text)
        return machine
    }

    @Test func keepLastLeavesOneSegmentThatAFreshCheckoutReuses() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let ci = try trust.machine("ci")
        #expect(try await trust.run(ci, server).result.status == 0)
        try scratch.write("ci/in/a.txt", "photo a, edited\n")
        #expect(try await trust.run(ci, server).summary == "6 nodes: 2 succeeded, 4 cached")
        #expect(try trust.keys(server, "site/journals/").count == 2)
        #expect(try trust.keys(server, "site/files/").count == 4)

        // The first `a`'s records go, and so does the copy of the file only they named.
        let cleaned = try await clean(ci, server, ["--keep-last", "--grace", "0s"])
        #expect(cleaned.status == 0 && cleaned.stderr.isEmpty, "\(cleaned.stderr)")
        #expect(
            cleaned.stdout == """
                cleaned; removed 2 segments and 1 object (8 bytes)
                store s3://state/site: 6 results (6 records in the journal), SIZE, last recorded by the run of TIME
                stored outputs: 0 of this workflow; 0 blobs in the store, 0 bytes
                written files kept for restoring: 3, 32 bytes

                """, "\(cleaned.stdout)")
        #expect(try trust.keys(server, "site/journals/").count == 1)

        let laptop = try machine("laptop", a: "photo a, edited\n")
        let (reuse, summary) = try await trust.run(laptop, server)
        #expect(reuse.status == 0 && reuse.stderr.isEmpty, "\(reuse.stdout)\(reuse.stderr)")
        #expect(summary == "6 nodes: 3 cached, 3 restored")
        #expect(
            try String(contentsOf: laptop.folder.appendingPathComponent("out/a.txt"), encoding: .utf8)
                == "photo a, edited\n")
    }

    /// Without a limit the workflow's segments go; the objects they named stay while younger than the grace
    /// period (a run may be about to upload records naming them), and go with `--grace 0s`.
    @Test func cleanEmptiesTheWorkflowsPartAndWaitsOutTheGracePeriod() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let ci = try trust.machine("ci")
        #expect(try await trust.run(ci, server).result.status == 0)

        let first = try await clean(ci, server)
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        #expect(
            first.stdout == """
                cleaned; removed 1 segment and 0 objects (0 bytes); left 3 unreferenced objects younger than 1h \
                (--grace)
                store s3://state/site: 0 results (0 records in the journal), 0 bytes
                stored outputs: 0 of this workflow; 0 blobs in the store, 0 bytes
                written files kept for restoring: 3, 24 bytes

                """)
        #expect(try trust.keys(server, "site/journals/").isEmpty)

        let second = try await clean(ci, server, ["--grace", "0s"])
        #expect(
            second.stdout == """
                cleaned; removed 0 segments and 3 objects (24 bytes)
                store s3://state/site: 0 results (0 records in the journal), 0 bytes
                stored outputs: 0 of this workflow; 0 blobs in the store, 0 bytes

                """, "\(second.stderr)")
        #expect(try trust.keys(server, "site/").isEmpty)

        let (fresh, summary) = try await trust.run(try trust.machine("laptop"), server)
        #expect(fresh.status == 0 && summary == "6 nodes: 6 succeeded", "\(fresh.stdout)\(fresh.stderr)")
    }

    /// Objects another workflow's records name stay, whatever their age: they are its results.
    @Test func anotherWorkflowsObjectsStay() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let ci = try trust.machine("ci")
        #expect(try await trust.run(ci, server).result.status == 0)
        try scratch.write(
            "ci/other.yaml",
            try String(contentsOf: ci.folder.appendingPathComponent("flow.yaml"), encoding: .utf8).replacing(
                "out/", with: "copies/"))
        let other = try await BucketStoreCLITests.run(
            ["other.yaml", "--no-progress", "--state-dir", "s3://state/site"], on: ci, server)
        #expect(other.status == 0, "\(other.stdout)\(other.stderr)")

        let cleaned = try await clean(ci, server, ["--grace", "0s"])
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(cleaned.stdout.hasPrefix("cleaned; removed 1 segment and 0 objects (0 bytes)\n"), "\(cleaned.stdout)")
        #expect(try trust.keys(server, "site/journals/").map { $0.split(separator: "/")[2] } == ["other.yaml"])
        #expect(try trust.keys(server, "site/files/").count == 3)
    }

    /// Results kept from a signed store go up signed: without the key, only emptying it is allowed.
    @Test func aSignedStoreIsTrimmedOnlyWithItsKey() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let ci = try trust.machine("ci", key: "team secret")
        #expect(try await trust.run(ci, server).result.status == 0)
        let stored = try trust.keys(server, "site/")

        let refused = try await clean(try trust.machine("laptop"), server, ["--keep-last"])
        #expect(refused.status == 2)
        #expect(
            refused.stderr == """
                error: the store s3://state/site signs its segments: set FLOWRUN_CACHE_KEY (or FLOWRUN_CACHE_KEY_FILE) \
                to clean it, so that the results kept stay trusted; nothing was removed

                """)
        #expect(try trust.keys(server, "site/") == stored)

        let kept = try await clean(ci, server, ["--keep-last"])
        #expect(kept.status == 0, "\(kept.stderr)")
        let segments = try trust.keys(server, "site/journals/flow.yaml/")
        #expect(segments.count == 2 && segments[1] == segments[0] + ".hmac" && !stored.contains(segments[0]))
        let (reuse, summary) = try await trust.run(try trust.machine("laptop-2", key: "team secret"), server)
        #expect(reuse.status == 0 && reuse.stderr.isEmpty, "\(reuse.stdout)\(reuse.stderr)")
        #expect(summary == "6 nodes: 3 cached, 3 restored")
    }
}
