import FlowKit
import FlowS3
import Foundation
import Testing

/// `s3://` sources, globs and outputs through the built binary, against a real S3 server (SeaweedFS) behind a
/// counting proxy: the photo job from a bucket to a bucket gives the bytes it gives from files to files; a rerun
/// of an unchanged job sends no GET; throttling is retried; each kind of refusal fails with its own message.
@Suite(.serialized, .enabled(if: SeaweedServer.unavailable == nil, Comment(rawValue: SeaweedServer.unavailable ?? "")))
struct S3CLITests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    /// Runs flowrun in the scratch folder with `environment`.
    func run(_ arguments: [String], _ environment: [String: String]) async throws -> Flowrun.Result {
        let child = try Child.flowrun(arguments + ["--no-progress"], in: scratch.url, environment: environment)
        return try #require(await child.wait(timeout: .seconds(600)), "flowrun \(arguments) did not finish")
    }

    /// fetch → decode → resize → write for each object or file the glob names.
    func photoJob(glob: String, output: String) -> String {
        """
        version: 1
        name: thumbs
        tasks:
          fetch: { type: fetch, forEach: { glob: "\(glob)" }, url: "${item}" }
          decode: { type: decode, dependsOn: fetch }
          thumb: { type: resize, width: 32, dependsOn: decode }
          save: { type: write, path: "\(output)/${item.dir}/${item.stem}.png", dependsOn: thumb }
        """
    }

    /// Where a photo lies below `in/` and its thumbnail below `out/`: two folders, so `${item.dir}` matters.
    func rel(_ name: String) -> String {
        (Fixtures.photoNames.firstIndex(of: name) ?? 0).isMultiple(of: 2) ? "a/\(name)" : "b/\(name)"
    }

    @Test func thePhotoJobFromBucketToBucketWritesWhatItWritesFromFilesAndARerunSendsNoGet() async throws {
        let server = try SeaweedServer(buckets: ["photos", "thumbs"])
        defer { server.stop() }
        for name in Fixtures.photoNames {
            try server.client.put(Fixtures.photo(name), at: S3Location(bucket: "photos", key: "in/\(rel(name)).jpg"))
            try scratch.write("in/\(rel(name)).jpg", "")
            try Fixtures.photo(name).write(to: URL(fileURLWithPath: scratch.path("in/\(rel(name)).jpg")))
        }
        try server.client.put(Data("not a photo".utf8), at: S3Location(bucket: "photos", key: "in/notes.txt"))
        try scratch.write("local.yaml", photoJob(glob: "in/**/*.jpg", output: "out"))
        try scratch.write("bucket.yaml", photoJob(glob: "s3://photos/in/**/*.jpg", output: "s3://thumbs/out"))
        let local = try await run(["local.yaml"], [:])
        #expect(local.status == 0, "\(local.stdout)\(local.stderr)")

        let proxy = try S3Proxy(upstream: server.port)
        let environment = server.environment(port: proxy.port)
        let first = try await run(["bucket.yaml"], environment)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        for name in Fixtures.photoNames {
            let written = try server.client.get(
                S3Location(bucket: "thumbs", key: "out/\(rel(name)).png"), maxBytes: 1 << 20)
            #expect(written.bytes == (try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/\(rel(name)).png")))))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("s3:")))
        #expect(proxy.count("GET", containing: "list-type=2") == 1)
        #expect(proxy.count("GET", containing: "/photos/in/") == 5)
        #expect(proxy.count("PUT") == 5, "\(proxy.requests)")

        // Unchanged: the glob's listing and one listing of the output folder tell it all.
        let before = proxy.requests.count
        let second = try await run(["bucket.yaml"], environment)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("20 nodes: 20 cached"), "\(second.stdout)")
        #expect(
            proxy.requests[before...].sorted() == [
                "GET /photos/?list-type=2&prefix=in%2F", "GET /thumbs/?list-type=2&prefix=out%2Fa%2F",
                "GET /thumbs/?list-type=2&prefix=out%2Fb%2F",
            ])

        // A replaced output reruns its own chain only: one GET, one PUT.
        try server.client.put(Data("replaced".utf8), at: S3Location(bucket: "thumbs", key: "out/a/wine.png"))
        let third = try await run(["bucket.yaml"], environment)
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        #expect(proxy.count("GET", containing: "/photos/in/") == 6)
        #expect(proxy.count("PUT") == 6)
        let restored = try server.client.get(S3Location(bucket: "thumbs", key: "out/a/wine.png"), maxBytes: 1 << 20)
        #expect(restored.bytes == (try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/a/wine.png")))))

        // A replaced source reruns its own chain only, found by its new ETag in the listing.
        try server.client.put(Fixtures.photo("sunset"), at: S3Location(bucket: "photos", key: "in/a/wine.jpg"))
        let fourth = try await run(["bucket.yaml"], environment)
        #expect(fourth.status == 0, "\(fourth.stdout)\(fourth.stderr)")
        #expect(fourth.stdout.contains("20 nodes: 4 succeeded, 16 cached"), "\(fourth.stdout)")
        #expect(proxy.count("GET", containing: "/photos/in/a/wine.jpg") == 3)
        #expect(proxy.count("PUT") == 7)
        let redone = try server.client.get(S3Location(bucket: "thumbs", key: "out/a/wine.png"), maxBytes: 1 << 20)
        #expect(redone.bytes == (try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/b/sunset.png")))))
    }

    /// Requests to one endpoint go over the connections of the sessions kept for it: one after another, over one.
    @Test func requestsOneAfterAnotherReuseOneConnection() async throws {
        let server = try SeaweedServer(buckets: ["reuse"])
        defer { server.stop() }
        for index in 0..<20 {
            try server.client.put(Data("\(index)".utf8), at: S3Location(bucket: "reuse", key: "in/\(index).txt"))
        }
        try scratch.write(
            "reuse.yaml",
            """
            version: 1
            queues:
              one: { maxConcurrent: 1 }
            tasks:
              get: { type: fetch, forEach: { glob: "s3://reuse/in/*.txt" }, url: "${item}", queue: one }
            """)
        let proxy = try S3Proxy(upstream: server.port)
        let result = try await run(["reuse.yaml"], server.environment(port: proxy.port))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(proxy.count("GET", containing: "/reuse/in/") == 20)
        #expect(proxy.requests.count == 21)
        #expect(proxy.connections == 1, "\(proxy.connections) connections for \(proxy.requests.count) requests")
    }

    /// Sixteen requests at once, each blocking the thread it runs on until its answer comes: those threads must not
    /// be the ones the sessions deliver answers on, or every answer waits for libdispatch to add threads. Starved,
    /// the 40 copies took 15 s sixteen at a time against 0.3 s one at a time (0.16 s since). The bound compares two
    /// runs made side by side, so a busy machine slows both alike, with two seconds for a hiccup of a short run.
    @Test func sixteenCopiesAtOnceAreNotSlowerThanOneAtATime() async throws {
        let server = try SeaweedServer(buckets: ["crowd"])
        defer { server.stop() }
        for index in 0..<40 {
            try server.client.put(
                Data(repeating: UInt8(index), count: 1024), at: S3Location(bucket: "crowd", key: "in/\(index).bin"))
        }
        var took: [Int: Duration] = [:]
        for width in [1, 16, 1, 16] {
            try scratch.write(
                "crowd\(width).yaml",
                """
                version: 1
                queues:
                  net: { maxConcurrent: \(width) }
                tasks:
                  get: { type: fetch, forEach: { glob: "s3://crowd/in/*.bin" }, url: "${item}", queue: net }
                  put: { type: write, path: "s3://crowd/out\(width)/${item.name}", dependsOn: get, queue: net }
                """)
            let started = ContinuousClock.now
            let result = try await run(["crowd\(width).yaml", "--no-cache"], server.environment())
            let elapsed = ContinuousClock.now - started
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            took[width] = min(took[width] ?? elapsed, elapsed)
        }
        let serial = try #require(took[1])
        let wide = try #require(took[16])
        #expect(wide < serial * 2 + .seconds(2), "40 copies took \(wide) sixteen at a time, \(serial) one at a time")
        for width in [1, 16] {
            var copied = 0
            try server.client.list(bucket: "crowd", prefix: "out\(width)/") {
                (page: [S3Client.ListedObject]) in copied += page.count
            }
            #expect(copied == 40)
        }
    }

    @Test func aGlobOverTwoThousandObjectsTakesTwoListRequests() async throws {
        let server = try SeaweedServer(buckets: ["many"])
        defer { server.stop() }
        let client = server.client
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in stride(from: worker, to: 2000, by: 8) {
                _ = try? client.put(
                    Data("\(index)".utf8), at: S3Location(bucket: "many", key: "p/\(index % 10)/\(index).txt"))
            }
        }
        try client.put(Data("x".utf8), at: S3Location(bucket: "many", key: "p/skip.dat"))
        try scratch.write(
            "many.yaml",
            """
            version: 1
            name: many
            tasks:
              each: { type: noop, forEach: { glob: "s3://many/p/**/*.txt" } }
            """)
        let proxy = try S3Proxy(upstream: server.port)
        let result = try await run(["many.yaml"], server.environment(port: proxy.port))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("2000 nodes"), "\(result.stdout)")
        #expect(proxy.requests.count == 3, "\(proxy.requests)")
        #expect(proxy.count("GET", containing: "list-type=2&prefix=p%2F") == 3)
    }

    @Test func throttlingIsRetriedWithBackOffAndARerunAsksWithOneHead() async throws {
        let server = try SeaweedServer(buckets: ["box"])
        defer { server.stop() }
        let photo = try Fixtures.photo("wine")
        try server.client.put(photo, at: S3Location(bucket: "box", key: "wine.jpg"))
        try scratch.write(
            "one.yaml",
            """
            version: 1
            name: one
            tasks:
              fetch: { type: fetch, url: "s3://box/wine.jpg" }
              save: { type: write, path: "wine.jpg", dependsOn: fetch }
            """)
        let flaky = try S3Proxy(upstream: server.port, failures: 2)
        let result = try await run(["one.yaml"], server.environment(port: flaky.port))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(flaky.count("GET", containing: "/box/wine.jpg") == 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("wine.jpg"))) == photo)

        // Unchanged and never listed: one HEAD tells, no GET.
        let again = try await run(["one.yaml"], server.environment(port: flaky.port))
        #expect(again.stdout.contains("2 nodes: 2 cached"), "\(again.stdout)\(again.stderr)")
        #expect(flaky.requests.suffix(1) == ["HEAD /box/wine.jpg"])

        // A list object names the items.
        try server.client.put(
            Data("# photos\ns3://box/wine.jpg\n".utf8), at: S3Location(bucket: "box", key: "list.txt"))
        try scratch.write(
            "list.yaml",
            """
            version: 1
            name: list
            tasks:
              fetch: { type: fetch, forEach: { file: "s3://box/list.txt" }, url: "${item}" }
              save: { type: write, path: "listed/${item.stem}.jpg", dependsOn: fetch }
            """)
        let listed = try await run(["list.yaml"], server.environment())
        #expect(listed.status == 0, "\(listed.stdout)\(listed.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("listed/wine.jpg"))) == photo)

        // Throttled past the attempts: the node fails naming the throttling, after three attempts.
        try FileManager.default.removeItem(atPath: scratch.path("wine.jpg"))
        let busy = try S3Proxy(upstream: server.port, failures: 100)
        let failed = try await run(["one.yaml", "--force"], server.environment(port: busy.port))
        #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
        #expect(
            (failed.stdout + failed.stderr).contains(
                "S3 answered GET 's3://box/wine.jpg' with an error (SlowDown, HTTP 503): Please reduce your request rate."
            ), "\(failed.stderr)")
        #expect(busy.count("GET") == 3)
    }

    @Test func aStalledDownloadEndsAtTheNodesTimeout() async throws {
        let server = try SeaweedServer(buckets: ["box"])
        defer { server.stop() }
        try scratch.write(
            "stall.yaml",
            """
            version: 1
            name: stall
            tasks:
              fetch: { type: fetch, url: "s3://box/wine.jpg", timeout: 2s }
            """)
        let stalled = try S3Proxy(upstream: server.port, stalls: true)
        let started = ContinuousClock.now
        let result = try await run(["stall.yaml"], server.environment(port: stalled.port))
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect((result.stdout + result.stderr).contains("fetch failed: timed out after 2s"), "\(result.stdout)")
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(stalled.requests == ["GET /box/wine.jpg"])
    }

    @Test func wrongCredentialsAMissingBucketAndAMissingKeyEachFailWithTheirOwnMessage() async throws {
        let server = try SeaweedServer(buckets: ["box"])
        defer { server.stop() }
        try server.client.put(Data("x".utf8), at: S3Location(bucket: "box", key: "there.txt"))
        func fetch(_ url: String, secret: String = SeaweedServer.secretAccessKey) async throws -> Flowrun.Result {
            try scratch.write(
                "one.yaml",
                """
                version: 1
                name: one
                tasks:
                  fetch: { type: fetch, url: "\(url)" }
                """)
            return try await run(["one.yaml", "--force"], server.environment(secret: secret))
        }
        let wrongSecret = try await fetch("s3://box/there.txt", secret: "not-the-secret")
        #expect(wrongSecret.status == 1)
        #expect(
            (wrongSecret.stdout + wrongSecret.stderr).contains(
                "the secret access key does not match the access key id used for 's3://box/there.txt': check"
                    + " AWS_SECRET_ACCESS_KEY or the profile (SignatureDoesNotMatch, HTTP 403)"),
            "\(wrongSecret.stderr)")
        #expect(
            !(wrongSecret.stdout + wrongSecret.stderr).contains("not-the-secret")
                && !wrongSecret.stdout.contains("not-the-secret"))
        let noBucket = try await fetch("s3://nobucket/there.txt")
        #expect(
            (noBucket.stdout + noBucket.stderr).contains(
                "the bucket 'nobucket' does not exist (NoSuchBucket, HTTP 404)"),
            "\(noBucket.stderr)")
        let noKey = try await fetch("s3://box/missing.txt")
        #expect(
            (noKey.stdout + noKey.stderr).contains(
                "the bucket 'box' has no object 'missing.txt' (NoSuchKey, HTTP 404)"), "\(noKey.stderr)"
        )
    }

    @Test func aLargeWriteGoesUpInPartsAndAPathNamingNoObjectIsRefused() async throws {
        let server = try SeaweedServer(buckets: ["big"])
        defer { server.stop() }
        var large = Data(count: 17 << 20)
        for index in stride(from: 0, to: large.count, by: 4099) { large[index] = UInt8(truncatingIfNeeded: index) }
        try large.write(to: URL(fileURLWithPath: scratch.path("large.bin")))
        try scratch.write(
            "copy.yaml",
            """
            version: 1
            name: copy
            tasks:
              read: { type: fetch, url: large.bin, maxBytes: 100000000 }
              up: { type: write, path: "s3://big/copies/large.bin", dependsOn: read }
              bad: { type: write, path: "s3://big/", dependsOn: read }
            """)
        let proxy = try S3Proxy(upstream: server.port)
        let result = try await run(["copy.yaml"], server.environment(port: proxy.port))
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            (result.stdout + result.stderr).contains("'s3://big/' names no object: write s3://bucket/key"),
            "\(result.stdout)\(result.stderr)")
        #expect(
            try server.client.get(S3Location(bucket: "big", key: "copies/large.bin"), maxBytes: 32 << 20).bytes == large
        )
        #expect(proxy.count("POST", containing: "uploads=") == 1)
        #expect(proxy.count("PUT", containing: "partNumber=") == 3)
        #expect(proxy.count("POST", containing: "uploadId=") == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("s3:")))
    }
}
