import FlowKit
import FlowS3
import Foundation
import Testing

/// `${inputs}` of a gather command after `write`s to a bucket is the same in every run: the objects the writes
/// recorded serve as its inputs when they are cached, as files do. Through the built binary, on a real S3 server.
@Suite(.serialized, .enabled(if: SeaweedServer.unavailable == nil, Comment(rawValue: SeaweedServer.unavailable ?? "")))
struct S3GatherInputsTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.writeItems(["a", "b"], in: scratch)
        try scratch.write(
            "site.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              save: { type: write, path: "s3://site-cache/t/${item.stem}.txt", dependsOn: read }
              index:
                type: command
                gather: true
                dependsOn: save
                argv: [sh, -c, 'echo "args: $#: $*" | tee args.txt', sh, "${inputs}"]
              manifest: { type: write, path: "s3://site-cache/index.txt", dependsOn: index }
            """)
    }

    func run(_ environment: [String: String]) async throws -> Flowrun.Result {
        let child = try Child.flowrun(
            ["site.yaml", "--no-progress"], in: scratch.url, environment: environment)
        return try #require(await child.wait(timeout: .seconds(600)), "flowrun did not finish")
    }

    func arguments() throws -> String {
        try String(contentsOfFile: scratch.path("args.txt"), encoding: .utf8)
    }

    @Test func cachedWritesToABucketGiveTheGatherTheirRecordedObjects() async throws {
        let server = try SeaweedServer(buckets: ["site-cache"])
        defer { server.stop() }
        let environment = server.environment()
        let all = "args: 2: s3://site-cache/t/a.txt s3://site-cache/t/b.txt\n"
        let first = try await run(environment)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(try arguments() == all)

        // Every write cached: the command gets the same two objects, and the manifest, the same bytes, stays.
        let second = try await run(environment)
        #expect(second.stdout.contains("6 nodes: 1 succeeded, 5 cached"), "\(second.stdout)")
        #expect(try arguments() == all)
        let manifest = try server.client.get(S3Location(bucket: "site-cache", key: "index.txt"), maxBytes: 1 << 20)
        #expect(String(decoding: manifest.bytes, as: UTF8.self) == all)

        // An object replaced by hand: its write runs again, and the command still gets both.
        try server.client.put(Data("replaced".utf8), at: S3Location(bucket: "site-cache", key: "t/b.txt"))
        let third = try await run(environment)
        #expect(third.stdout.contains("6 nodes: 3 succeeded, 3 cached"), "\(third.stdout)")
        #expect(try arguments() == all)
        let restored = try server.client.get(S3Location(bucket: "site-cache", key: "t/b.txt"), maxBytes: 1 << 20)
        #expect(String(decoding: restored.bytes, as: UTF8.self) == "item b\n")

        // An object deleted by hand: its write runs again, and the command still gets both.
        try server.client.delete(S3Location(bucket: "site-cache", key: "t/a.txt"))
        let fourth = try await run(environment)
        #expect(fourth.stdout.contains("6 nodes: 3 succeeded, 3 cached"), "\(fourth.stdout)")
        #expect(try arguments() == all)
        let rewritten = try server.client.get(S3Location(bucket: "site-cache", key: "t/a.txt"), maxBytes: 1 << 20)
        #expect(String(decoding: rewritten.bytes, as: UTF8.self) == "item a\n")
    }
}
