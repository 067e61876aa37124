import FlowKit
import FlowS3
import Foundation
import Testing

/// Keys with `.` and `..` segments against a real S3 server (SeaweedFS), through the built binary: the object of
/// another bucket that `in/../../other/x.txt` would resolve to is never read nor written, a write to such a key
/// is refused, and neither is reported as a wrong secret key.
@Suite(.serialized, .enabled(if: SeaweedServer.unavailable == nil, Comment(rawValue: SeaweedServer.unavailable ?? "")))
struct S3KeySegmentTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    @Test func aKeyWithDotSegmentsReachesNoOtherBucket() async throws {
        let server = try SeaweedServer(buckets: ["dotkeys", "other"])
        defer { server.stop() }
        try server.client.put(Data("another bucket's object".utf8), at: S3Location(bucket: "other", key: "x.txt"))
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              list: { type: command, argv: [printf, "in/../../other/x.txt\\n"] }
              get: { type: fetch, forEach: { from: list }, url: "s3://dotkeys/${item}" }
              save: { type: write, dependsOn: get, path: "out/x.txt" }
              up: { type: write, dependsOn: list, path: "s3://dotkeys/in/../../other/x.txt" }
            """)
        let proxy = try S3Proxy(upstream: server.port)
        let child = try Child.flowrun(
            ["flow.yaml", "--no-progress"], in: scratch.url, environment: server.environment(port: proxy.port))
        let result = try #require(await child.wait(timeout: .seconds(120)), "flowrun did not finish")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let problem =
            "the key of 's3://dotkeys/in/../../other/x.txt' has a '..' segment, which HTTP would resolve into another"
            + " key or bucket; flowrun sends keys as written and refuses such a key (rename the object without '.'"
            + " and '..' segments)"
        let skipped = " — 1 dependent skipped\n"
        #expect(
            result.stdout.contains("error: get[in/../../other/x.txt] failed: \(problem)\(skipped)"), "\(result.stdout)")
        #expect(result.stdout.contains("error: up failed: \(problem)\n"), "\(result.stdout)")
        #expect(!result.stdout.contains("secret access key"), "\(result.stdout)")
        #expect(proxy.requests.isEmpty, "\(proxy.requests)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/x.txt")))
        let kept = try server.client.get(S3Location(bucket: "other", key: "x.txt"), maxBytes: 1 << 10)
        #expect(kept.bytes == Data("another bucket's object".utf8))
    }
}
