import FlowKit
import FlowKitTesting
import FlowS3
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--state-dir s3://bucket/prefix` through the built binary, against a real S3 server (SeaweedFS): shards in
/// folders of their own — separate machines, sharing nothing but the bucket — and their gather make what one
/// local run makes; each run's records are an object of its own; a run on another machine reuses them.
@Suite(.serialized, .enabled(if: SeaweedServer.unavailable == nil, Comment(rawValue: SeaweedServer.unavailable ?? "")))
struct BucketStoreCLITests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    /// Thumbnails from a bucket to a bucket, and a gather that tabulates what `probe` says of each photo: the
    /// values cross from the shards to the gather through the store.
    static let workflow = """
        version: 1
        name: thumbs
        params: { out: "s3://thumbs/single" }
        tasks:
          fetch: { type: fetch, forEach: { glob: "s3://photos/in/*.jpg" }, url: "${item}" }
          decode: { type: decode, dependsOn: fetch }
          thumb: { type: resize, width: 32, dependsOn: decode }
          save: { type: write, path: "${params.out}/${item.stem}.png", dependsOn: thumb }
          info: { type: probe, dependsOn: fetch, cache: true }
          table: { type: catalogue, gather: true, path: "out/photos.json", dependsOn: info }
        """

    /// A machine of its own: a folder with the workflow and a cache folder (where the bucket's store is pulled).
    func machine(_ name: String) throws -> (folder: URL, environment: [String: String]) {
        try scratch.write("\(name)/thumbs.yaml", Self.workflow)
        return (scratch.url.appendingPathComponent(name), ["XDG_CACHE_HOME": scratch.path("\(name)/cache")])
    }

    static func run(
        _ arguments: [String], on machine: (folder: URL, environment: [String: String]), _ server: SeaweedServer
    ) async throws -> Flowrun.Result {
        let child = try Child.flowrun(
            arguments, in: machine.folder,
            environment: server.environment().merging(machine.environment) { $1 })
        return try #require(await child.wait(timeout: .seconds(600)), "flowrun \(arguments) did not finish")
    }

    /// The keys under `prefix` in `bucket`.
    func keys(_ server: SeaweedServer, _ bucket: String, _ prefix: String) throws -> [String] {
        var keys: [String] = []
        try server.client.list(bucket: bucket, prefix: prefix) { (page: [S3Client.ListedObject]) in
            keys += page.map(\.key)
        }
        return keys.sorted()
    }

    @Test func shardsOnMachinesSharingOnlyTheBucketMakeWhatOneLocalRunMakes() async throws {
        let server = try SeaweedServer(buckets: ["photos", "thumbs", "state"])
        defer { server.stop() }
        for name in Fixtures.photoNames {
            try server.client.put(Fixtures.photo(name), at: S3Location(bucket: "photos", key: "in/\(name).jpg"))
        }
        let single = try machine("single")
        let local = try await Self.run(["thumbs.yaml", "--no-progress"], on: single, server)
        #expect(local.status == 0, "\(local.stdout)\(local.stderr)")

        // Both shards at once, each on its own machine: neither overwrites the other's records.
        let store = [
            "thumbs.yaml", "--no-progress", "--verbose", "--state-dir", "s3://state/runs/thumbs", "--param",
            "out=s3://thumbs/sharded",
        ]
        let (one, two) = (try machine("one"), try machine("two"))
        async let first = Self.run(store + ["--shard", "1/2"], on: one, server)
        async let second = Self.run(store + ["--shard", "2/2"], on: two, server)
        for shard in try await [first, second] { #expect(shard.status == 0, "\(shard.stdout)\(shard.stderr)") }
        let gatherer = try machine("gather")
        let gather = try await Self.run(store + ["--gather"], on: gatherer, server)
        #expect(gather.status == 0, "\(gather.stdout)\(gather.stderr)")
        #expect(Self.status(of: "table", in: gather.stdout) == "succeeded", "\(gather.stdout)")

        for name in Fixtures.photoNames {
            let made = try server.client.get(S3Location(bucket: "thumbs", key: "single/\(name).png"), maxBytes: 1 << 20)
            let sharded = try server.client.get(
                S3Location(bucket: "thumbs", key: "sharded/\(name).png"), maxBytes: 1 << 20)
            #expect(sharded.bytes == made.bytes, "\(name)")
        }
        let table = try Data(contentsOf: gatherer.folder.appendingPathComponent("out/photos.json"))
        #expect(table == (try Data(contentsOf: single.folder.appendingPathComponent("out/photos.json"))))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("single/s3:")))

        // One segment per run, in a folder per journal; the values the gather read are blobs.
        let segments = try keys(server, "state", "runs/thumbs/journals/")
        let folders = segments.map { $0.split(separator: "/").dropLast().joined(separator: "/") }
        #expect(
            folders == [
                "runs/thumbs/journals/thumbs.yaml.gather", "runs/thumbs/journals/thumbs.yaml.shard-1-of-2",
                "runs/thumbs/journals/thumbs.yaml.shard-2-of-2",
            ], "\(segments)")
        #expect(try keys(server, "state", "runs/thumbs/blobs/").count == Fixtures.photoNames.count)
        #expect(
            try keys(server, "state", "runs/thumbs/shards/") == [
                "runs/thumbs/shards/thumbs.yaml.shard-1-of-2.json", "runs/thumbs/shards/thumbs.yaml.shard-2-of-2.json",
            ])

        // A machine that never ran it reuses everything from the bucket, and uploads no records; so does the
        // gather run again.
        let fresh = try machine("fresh")
        let rerun = try await Self.run(store + ["--shard", "2/2"], on: fresh, server)
        #expect(rerun.status == 0, "\(rerun.stdout)\(rerun.stderr)")
        #expect(rerun.stdout.contains("15 nodes: 15 cached in "), "\(rerun.stdout)")
        let regathered = try await Self.run(store + ["--gather"], on: gatherer, server)
        #expect(regathered.status == 0, "\(regathered.stdout)\(regathered.stderr)")
        #expect(Self.status(of: "table", in: regathered.stdout) == "cached", "\(regathered.stdout)")
        #expect(try keys(server, "state", "runs/thumbs/journals/") == segments)
    }

    /// The status column of `node`'s row in a summary table.
    static func status(of node: String, in table: String) -> String? {
        table.split(separator: "\n").first { $0.hasPrefix(node + " ") }?.split(separator: " ").dropFirst().first.map(
            String.init)
    }

    @Test func aRerunWithTheStoreInTheBucketCachesEverythingAndCacheStatusReadsIt() async throws {
        let server = try SeaweedServer(buckets: ["photos", "thumbs", "state"])
        defer { server.stop() }
        for name in Fixtures.photoNames {
            try server.client.put(Fixtures.photo(name), at: S3Location(bucket: "photos", key: "in/\(name).jpg"))
        }
        let here = try machine("here")
        let store = ["thumbs.yaml", "--state-dir", "s3://state/p"]
        let first = try await Self.run(store + ["--no-progress"], on: here, server)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let second = try await Self.run(store + ["--no-progress"], on: here, server)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("26 nodes: 26 cached"), "\(second.stdout)")
        #expect(try keys(server, "state", "p/journals/").count == 1)

        // A damaged segment is one warning; the others are used.
        try server.client.put(
            Data("not a journal".utf8),
            at: S3Location(bucket: "state", key: "p/journals/thumbs.yaml/99999999999999999999-0.journal"))
        let third = try await Self.run(store + ["--no-progress"], on: here, server)
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        #expect(
            third.stderr
                == "warning: store s3://state/p: the segment thumbs.yaml/99999999999999999999-0.journal is damaged or "
                + "not a journal of this flowrun: its first 0 records are used, the rest is not\n")
        #expect(third.stdout.contains("26 nodes: 26 cached"), "\(third.stdout)")

        let status = try await Self.run(["cache", "status"] + store, on: here, server)
        #expect(status.status == 0, "\(status.stderr)")
        let shown = status.stdout.replacing(#/run of [0-9T:-]+Z/#, with: "run of TIME")
            .replacing(#/, [0-9.]+ KiB/#, with: ", SIZE")
        #expect(
            shown == """
                store s3://state/p: 26 results (26 records in the journal), SIZE, last recorded by the run of TIME
                stored outputs: 5 of this workflow; 5 blobs in the store, SIZE
                written files kept for restoring: 1, SIZE
                stale outputs: none

                """)

        // Both segments go (the damaged one too); the blobs and the copy of the catalogue, just uploaded, are left
        // for the grace period.
        let clean = try await Self.run(["cache", "clean"] + store, on: here, server)
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(
            clean.stdout.replacing(#/(in the store|restoring: 1), [0-9.]+ (KiB|bytes)/#) { "\($0.1), SIZE" } == """
                cleaned; removed 2 segments and 0 objects (0 bytes); left 6 unreferenced objects younger than 1h \
                (--grace)
                store s3://state/p: 0 results (0 records in the journal), 0 bytes
                stored outputs: 0 of this workflow; 5 blobs in the store, SIZE
                written files kept for restoring: 1, SIZE

                """)
        #expect(try keys(server, "state", "p/journals/").isEmpty)
    }

    /// `clean --stale` with the store in a bucket: the files earlier runs wrote that the workflow no longer
    /// writes are removed (a renamed output folder), the others stay, and the bucket is not written.
    /// Objects in a bucket that the workflow no longer writes go too, where their `ETag` is still the one
    /// recorded; one replaced by hand stays.
    @Test func cleanStaleRemovesObjectsTheWorkflowNoLongerWritesInABucket() async throws {
        let server = try SeaweedServer(buckets: ["photos", "thumbs", "state"])
        defer { server.stop() }
        for name in Fixtures.photoNames.prefix(2) {
            try server.client.put(Fixtures.photo(name), at: S3Location(bucket: "photos", key: "in/\(name).jpg"))
        }
        let here = try machine("here")
        let store = ["--state-dir", "s3://state/p"]
        let first = try await Self.run(["thumbs.yaml", "--no-progress"] + store, on: here, server)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let names = Fixtures.photoNames.prefix(2).sorted()
        try server.client.put(Data("by hand".utf8), at: S3Location(bucket: "thumbs", key: "single/\(names[1]).png"))

        let moved = ["--param", "out=s3://thumbs/moved"]
        let cleaned = try await Self.run(
            ["cache", "clean", "thumbs.yaml", "--stale"] + store + moved, on: here, server)
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(
            cleaned.stdout == """
                removed s3://thumbs/single/\(names[0]).png (written by save[s3://photos/in/\(names[0]).jpg])
                left s3://thumbs/single/\(names[1]).png (written by save[s3://photos/in/\(names[1]).jpg]): changed \
                since flowrun wrote it
                removed 1 file; left 1 file

                """)
        #expect(try keys(server, "thumbs", "single/") == ["single/\(names[1]).png"])
    }

    @Test func cleanStaleRemovesWhatTheWorkflowNoLongerWritesWithTheStoreInABucket() async throws {
        let server = try SeaweedServer(buckets: ["photos", "thumbs", "state"])
        defer { server.stop() }
        for name in Fixtures.photoNames.prefix(2) {
            try server.client.put(Fixtures.photo(name), at: S3Location(bucket: "photos", key: "in/\(name).jpg"))
        }
        let here = try machine("here")
        let store = ["--state-dir", "s3://state/p"]
        let local = Self.workflow.replacing("\"${params.out}/${item.stem}.png\"", with: "\"old/${item.stem}.png\"")
        try scratch.write("here/thumbs.yaml", local)
        let first = try await Self.run(["thumbs.yaml", "--no-progress"] + store, on: here, server)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let segments = try keys(server, "state", "p/")

        try scratch.write("here/thumbs.yaml", local.replacing("\"old/", with: "\"new/"))
        let names = Fixtures.photoNames.prefix(2).sorted()
        let listed = try await Self.run(["clean", "thumbs.yaml", "--stale", "--dry-run"] + store, on: here, server)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(
            listed.stdout
                == names.map { "would remove old/\($0).png (written by save[s3://photos/in/\($0).jpg])\n" }.joined()
                + "would remove 2 files; would leave 0 files\n")
        #expect(FileManager.default.fileExists(atPath: scratch.path("here/old/\(names[0]).png")))

        let cleaned = try await Self.run(["clean", "thumbs.yaml", "--stale"] + store, on: here, server)
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(
            cleaned.stdout
                == names.map { "removed old/\($0).png (written by save[s3://photos/in/\($0).jpg])\n" }.joined()
                + "removed 2 files; left 0 files\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("here/old")).isEmpty)
        #expect(try keys(server, "state", "p/") == segments, "the bucket was written")
    }

    /// No lock spans machines: two whole runs at once on one prefix both work, each uploads its own segment, and
    /// a third machine reuses what they recorded (the later upload's records winning where both have one).
    @Test func twoRunsAtOnceOnOnePrefixBothWorkAndKeepTheirOwnSegments() async throws {
        let server = try SeaweedServer(buckets: ["photos", "thumbs", "state"])
        defer { server.stop() }
        for name in Fixtures.photoNames {
            try server.client.put(Fixtures.photo(name), at: S3Location(bucket: "photos", key: "in/\(name).jpg"))
        }
        let store = ["thumbs.yaml", "--no-progress", "--state-dir", "s3://state/p"]
        let (one, two) = (try machine("one"), try machine("two"))
        async let first = Self.run(store, on: one, server)
        async let second = Self.run(store, on: two, server)
        for run in try await [first, second] { #expect(run.status == 0, "\(run.stdout)\(run.stderr)") }
        #expect(try keys(server, "state", "p/journals/thumbs.yaml/").count == 2)

        let third = try await Self.run(store, on: try machine("three"), server)
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        // The table is a file on the machine that wrote it: the third gets the store's copy of it.
        #expect(third.stdout.contains("26 nodes: 25 cached, 1 restored in "), "\(third.stdout)")
    }

    @Test func aRunStoppedWithSIGTERMUploadsWhatFinished() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let here = try machine("here")
        try scratch.write(
            "here/stop.yaml",
            """
            version: 1
            tasks:
              quick: { type: command, argv: [touch, quick.done], cache: true }
              slow: { type: command, argv: [sleep, "60"] }
            """)
        let child = try Child.flowrun(
            ["stop.yaml", "--no-progress", "--state-dir", "s3://state/p"], in: here.folder,
            environment: server.environment().merging(here.environment) { $1 })
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: scratch.path("here/quick.done")), Date() < deadline {
            usleep(50_000)
        }
        usleep(300_000)
        child.signal(SIGTERM)
        let stopped = try #require(await child.wait(timeout: .seconds(600)), "flowrun did not stop on SIGTERM")
        #expect(stopped.status == 130, "\(stopped.stdout)\(stopped.stderr)")
        #expect(try keys(server, "state", "p/journals/stop.yaml/").count == 1)

        // Another machine finds the finished node in the bucket.
        let other = try machine("other")
        try FileManager.default.copyItem(
            atPath: scratch.path("here/stop.yaml"), toPath: scratch.path("other/stop.yaml"))
        let dry = try await Self.run(["stop.yaml", "--dry-run", "--state-dir", "s3://state/p"], on: other, server)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("quick  0 run, 1 cached"), "\(dry.stdout)")
    }

    @Test func aStoreURLNamingNoBucketStopsTheRunBeforeAnything() async throws {
        try scratch.write("one.yaml", "version: 1\ntasks:\n  a: { type: command, argv: [touch, ran] }\n")
        let child = try Child.flowrun(["one.yaml", "--no-progress", "--state-dir", "s3://"], in: scratch.url)
        let result = try #require(await child.wait(timeout: .seconds(600)))
        #expect(result.status == 2)
        #expect(
            result.stderr == "error: --state-dir 's3://' names no bucket (write s3://bucket/prefix); nothing was run\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("ran")))
    }

    @Test func aStoreInABucketThatDoesNotExistStopsTheRunBeforeAnything() async throws {
        let server = try SeaweedServer(buckets: ["photos"])
        defer { server.stop() }
        try server.client.put(Fixtures.photo("wine"), at: S3Location(bucket: "photos", key: "in/wine.jpg"))
        let here = try machine("here")
        let result = try await Self.run(
            ["thumbs.yaml", "--no-progress", "--state-dir", "s3://nowhere/p"], on: here, server)
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "error: cannot read the store s3://nowhere/p: the bucket 'nowhere' does not exist "
                + "(NoSuchBucket, HTTP 404); nothing was run\n")
        #expect(result.stdout.isEmpty)
    }
}
