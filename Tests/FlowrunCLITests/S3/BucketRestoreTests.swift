import FlowKit
import FlowKitTesting
import FlowS3
import Foundation
import Testing

/// CI with the store in a bucket (SeaweedFS): a fresh checkout in another folder, on a machine that shares nothing
/// but the bucket, gets the written files from the store instead of decoding and resizing again.
@Suite(.serialized, .enabled(if: SeaweedServer.unavailable == nil, Comment(rawValue: SeaweedServer.unavailable ?? "")))
struct BucketRestoreTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    static let workflow = """
        version: 1
        tasks:
          read: { type: fetch, forEach: { glob: "photos/*.jpg" }, url: "${item}" }
          decode: { type: decode, dependsOn: read }
          thumb: { type: resize, width: 48, dependsOn: decode }
          save: { type: write, path: "public/${item.stem}.png", dependsOn: thumb }
        """

    /// A checkout at `name` with a cache folder of its own: another CI machine.
    func checkout(_ name: String) throws -> (folder: URL, environment: [String: String]) {
        try scratch.write("\(name)/site.yaml", Self.workflow)
        try FileManager.default.createDirectory(
            atPath: scratch.path("\(name)/photos"), withIntermediateDirectories: true)
        for photo in Fixtures.photoNames {
            try Fixtures.photo(photo).write(to: URL(fileURLWithPath: scratch.path("\(name)/photos/\(photo).jpg")))
        }
        return (scratch.url.appendingPathComponent(name), ["XDG_CACHE_HOME": scratch.path("\(name)-cache")])
    }

    /// Runs the workflow of a checkout with the store in the bucket; the summary without its duration.
    func run(_ checkout: (folder: URL, environment: [String: String]), _ server: SeaweedServer) async throws
        -> (result: Flowrun.Result, summary: String)
    {
        let result = try await BucketStoreCLITests.run(
            ["site.yaml", "--no-progress", "--state-dir", "s3://state/site"], on: checkout, server)
        let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return (result, last.replacing(#/ in [0-9.]+m?s$/#, with: ""))
    }

    func written(_ name: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for photo in Fixtures.photoNames {
            files[photo] = try Data(contentsOf: URL(fileURLWithPath: scratch.path("\(name)/public/\(photo).png")))
        }
        return files
    }

    @Test func aFreshCheckoutElsewhereRestoresTheWrittenFilesAndDecodesNothing() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let first = try checkout("ci/build-1")
        let (cold, coldSummary) = try await run(first, server)
        #expect(cold.status == 0, "\(cold.stdout)\(cold.stderr)")
        #expect(coldSummary == "20 nodes: 20 succeeded", "\(cold.stdout)")
        #expect(cold.stderr.isEmpty, "\(cold.stderr)")
        let made = try written("ci/build-1")
        // One object per distinct file, named by its SHA-256.
        var objects: [String] = []
        try server.client.list(bucket: "state", prefix: "site/files/") {
            (page: [S3Client.ListedObject]) in objects += page.map(\.key)
        }
        objects.sort()
        #expect(objects == made.values.map { "site/files/" + ContentDigest.of($0) }.sorted())

        let second = try checkout("ci/build-2")
        let (fresh, summary) = try await run(second, server)
        #expect(fresh.status == 0, "\(fresh.stdout)\(fresh.stderr)")
        #expect(summary == "20 nodes: 15 cached, 5 restored", "\(fresh.stdout)")
        #expect(fresh.stderr.isEmpty, "\(fresh.stderr)")
        #expect(try written("ci/build-2") == made)

        // The restored files' records carry their new stamps: the next run trusts them as they are.
        let (again, againSummary) = try await run(second, server)
        #expect(again.status == 0 && againSummary == "20 nodes: 20 cached", "\(again.stdout)\(again.stderr)")
    }

    @Test func anObjectReplacedByHandIsAWarningAndItsChainRuns() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let first = try checkout("ci/build-1")
        #expect(try await run(first, server).result.status == 0)
        let made = try written("ci/build-1")
        let wine = ContentDigest.of(try #require(made["wine"]))
        try server.client.put(Data("not a png".utf8), at: S3Location(bucket: "state", key: "site/files/" + wine))

        let second = try checkout("ci/build-2")
        let (fresh, summary) = try await run(second, server)
        #expect(fresh.status == 0, "\(fresh.stdout)\(fresh.stderr)")
        #expect(summary == "20 nodes: 4 succeeded, 12 cached, 4 restored", "\(fresh.stdout)")
        #expect(
            fresh.stderr == """
                warning: 1 written file cannot be restored from s3://state/site/files/, so its node runs again: \
                public/wine.png: s3://state/site/files/\(wine) has 9 bytes, not the \(made["wine"]?.count ?? 0) recorded

                """)
        #expect(try written("ci/build-2") == made)
        // The run's own copy replaced the damaged object.
        let repaired = try server.client.get(S3Location(bucket: "state", key: "site/files/" + wine), maxBytes: 1 << 24)
        #expect(repaired.bytes == made["wine"])
    }
}
