import FlowKit
import FlowKitTesting
import FlowS3
import Foundation
import Testing

/// Whom a store in a bucket trusts (SeaweedFS): with `FLOWRUN_CACHE_KEY`, a run signs the segments it uploads and
/// uses only segments signed with the same key; `--cache-read-only` uses the bucket and uploads nothing.
@Suite(.serialized, .enabled(if: SeaweedServer.unavailable == nil, Comment(rawValue: SeaweedServer.unavailable ?? "")))
struct BucketTrustTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    /// A checkout of three sources copied to `out/`, with a cache folder of its own and `key` as
    /// `FLOWRUN_CACHE_KEY`: a CI machine, or a laptop.
    func machine(_ name: String, key: String? = nil) throws -> (folder: URL, environment: [String: String]) {
        try scratch.writeCopyWorkflow(in: name + "/")
        var environment = ["XDG_CACHE_HOME": scratch.path("\(name)-cache")]
        environment["FLOWRUN_CACHE_KEY"] = key
        return (scratch.url.appendingPathComponent(name), environment)
    }

    /// Runs a machine's workflow with the store at `s3://state/PREFIX`; the summary without its duration.
    func run(
        _ machine: (folder: URL, environment: [String: String]), _ server: SeaweedServer, prefix: String = "site",
        _ extra: [String] = []
    ) async throws -> (result: Flowrun.Result, summary: String) {
        let result = try await BucketStoreCLITests.run(
            ["flow.yaml", "--no-progress", "--state-dir", "s3://state/\(prefix)"] + extra, on: machine, server)
        let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return (result, last.replacing(#/ in [0-9.]+m?s$/#, with: ""))
    }

    func keys(_ server: SeaweedServer, _ prefix: String) throws -> [String] {
        var keys: [String] = []
        try server.client.list(bucket: "state", prefix: prefix) { (page: [S3Client.ListedObject]) in
            keys += page.map(\.key)
        }
        return keys.sorted()
    }

    static let untrusted = """
        warning: store s3://state/site: 1 segment is not signed with this FLOWRUN_CACHE_KEY (unsigned, changed, or \
        signed with another key): its results are ignored, and those nodes run

        """
    static let twoUntrusted = """
        warning: store s3://state/site: 2 segments are not signed with this FLOWRUN_CACHE_KEY (unsigned, changed, \
        or signed with another key): their results are ignored, and those nodes run

        """

    @Test func aSignedSegmentIsTrustedByTheSameKeyOnly() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let (writer, _) = try await run(try machine("ci", key: "team secret"), server)
        #expect(writer.status == 0 && writer.stderr.isEmpty, "\(writer.stdout)\(writer.stderr)")
        let segments = try keys(server, "site/journals/flow.yaml/")
        #expect(segments.count == 2 && segments[1] == segments[0] + ".hmac", "\(segments)")

        let (same, sameSummary) = try await run(try machine("laptop", key: "team secret"), server)
        #expect(same.status == 0 && same.stderr.isEmpty, "\(same.stdout)\(same.stderr)")
        #expect(sameSummary == "6 nodes: 3 cached, 3 restored", "\(same.stdout)")

        let (other, otherSummary) = try await run(try machine("intruder", key: "another secret"), server)
        #expect(other.status == 0, "\(other.stdout)\(other.stderr)")
        #expect(otherSummary == "6 nodes: 6 succeeded", "\(other.stdout)")
        // The CI run's segment and the laptop's (the records of the files it restored).
        #expect(other.stderr == Self.twoUntrusted)
    }

    @Test func aSegmentReplacedInTheBucketOrUnsignedIsIgnored() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        #expect(try await run(try machine("ci", key: "team secret"), server).result.status == 0)
        // Another run's records, valid but not signed with the key, put in place of the signed segment.
        #expect(try await run(try machine("elsewhere"), server, prefix: "other").result.status == 0)
        let forged = try #require(try keys(server, "other/journals/flow.yaml/").first)
        let signed = try #require(try keys(server, "site/journals/flow.yaml/").first)
        let bytes = try server.client.get(S3Location(bucket: "state", key: forged), maxBytes: 1 << 20).bytes
        try server.client.put(bytes, at: S3Location(bucket: "state", key: signed))

        let (reader, summary) = try await run(try machine("laptop", key: "team secret"), server)
        #expect(reader.status == 0 && summary == "6 nodes: 6 succeeded", "\(reader.stdout)\(reader.stderr)")
        #expect(reader.stderr == Self.untrusted)

        // Unsigned segments are ignored by a reader with a key, and used by one without.
        let (keyed, keyedSummary) = try await run(try machine("keyed", key: "team secret"), server, prefix: "other")
        #expect(keyed.status == 0 && keyedSummary == "6 nodes: 6 succeeded", "\(keyed.stdout)")
        #expect(keyed.stderr == Self.untrusted.replacingOccurrences(of: "state/site", with: "state/other"))
        let (plain, plainSummary) = try await run(try machine("plain"), server, prefix: "other")
        #expect(plain.status == 0 && plainSummary == "6 nodes: 3 cached, 3 restored", "\(plain.stdout)")
    }

    @Test func aReadOnlyRunUsesTheBucketAndUploadsNothing() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let (cold, coldSummary) = try await run(try machine("laptop-1"), server, ["--cache-read-only"])
        #expect(cold.status == 0 && coldSummary == "6 nodes: 6 succeeded", "\(cold.stdout)\(cold.stderr)")
        #expect(try keys(server, "site/").isEmpty, "a read-only run uploaded")

        #expect(try await run(try machine("ci"), server).result.status == 0)
        let stored = try keys(server, "site/")
        let (reuse, summary) = try await run(try machine("laptop-2"), server, ["--cache-read-only"])
        #expect(reuse.status == 0 && summary == "6 nodes: 3 cached, 3 restored", "\(reuse.stdout)\(reuse.stderr)")
        #expect(try keys(server, "site/") == stored, "a read-only run uploaded")
    }

    @Test func readOnlyNeedsABucket() async throws {
        let folder = try machine("local")
        let result = try await Child.runFlowrun(
            ["flow.yaml", "--state-dir", "store", "--cache-read-only"], in: folder.folder)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "Error: --cache-read-only is for a store in a bucket: give --state-dir s3://BUCKET/PREFIX\n"),
            "\(result.stderr)")
    }
}
