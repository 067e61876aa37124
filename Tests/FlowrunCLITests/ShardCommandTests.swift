import FlowKit
import Foundation
import Testing

/// `--shard K/N`, `--gather` and `flowrun report merge` through the built binary.
@Suite(.serialized) struct ShardCommandTests {
    static let photos = SchemaTests.repository.appendingPathComponent("examples/photos")

    /// A workflow over the bundled photos: fetch → decode → resize → write, then a gather that lists the outputs.
    static func thumbnails(in scratch: Scratch) throws -> String {
        try FileManager.default.createDirectory(atPath: scratch.path("w/photos"), withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: photos.path) where name.hasSuffix(".jpg") {
            if FileManager.default.fileExists(atPath: scratch.path("w/photos/\(name)")) { continue }
            try FileManager.default.copyItem(
                at: photos.appendingPathComponent(name), to: URL(fileURLWithPath: scratch.path("w/photos/\(name)")))
        }
        return try scratch.write(
            "w/thumbs.yaml",
            """
            version: 1
            name: thumbs
            params: { out: out }
            queues:
              cpu: { maxConcurrent: 2 }
            tasks:
              fetch: { type: fetch, forEach: { glob: "photos/*.jpg" }, url: "${item}", retries: 1, timeout: 30s }
              decode: { type: decode, dependsOn: fetch, queue: cpu, timeout: 30s }
              tone: { type: sepia, intensity: 0.7, dependsOn: decode, queue: cpu, timeout: 30s }
              small: { type: resize, scale: 0.25, dependsOn: tone, queue: cpu, timeout: 30s }
              save: { type: write, path: "${params.out}/${item.stem}.jpg", dependsOn: small, timeout: 30s }
              index:
                type: command
                gather: true
                dependsOn: save
                argv: [sh, -c, "ls ${params.out} > ${params.out}.index"]
                timeout: 30s
            """)
    }

    /// The files under `folder`, by relative path, with their bytes.
    static func contents(of folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let names = try FileManager.default.subpathsOfDirectory(atPath: folder)
        for name in names where !name.hasPrefix(".") {
            var isDirectory: ObjCBool = false
            let path = folder + "/" + name
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return files
    }

    @Test func shardsThenGatherMakeTheSameBytesAsOneRun() async throws {
        let scratch = try Scratch()
        let workflow = try Self.thumbnails(in: scratch)
        let single = try await Flowrun.runOffPool([workflow, "--param", "out=single", "--no-progress"])
        #expect(single.status == 0, "\(single.stderr)")
        for index in 1...3 {
            let shard = try await Flowrun.runOffPool([
                workflow, "--param", "out=sharded", "--shard", "\(index)/3", "--no-progress",
            ])
            #expect(shard.status == 0, "\(shard.stderr)")
            #expect(shard.stderr.contains("shard \(index)/3:"))
            #expect(!FileManager.default.fileExists(atPath: scratch.path("w/sharded.index")), "a shard ran the gather")
        }
        let gather = try await Flowrun.runOffPool(
            [workflow, "--param", "out=sharded", "--gather", "--no-progress", "--report", scratch.path("merged.json")])
        #expect(gather.status == 0, "\(gather.stderr)")

        let expected = try Self.contents(of: scratch.path("w/single"))
        #expect(expected.count == 5)
        #expect(try Self.contents(of: scratch.path("w/sharded")) == expected)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: scratch.path("w/sharded.index")))
                == Data(contentsOf: URL(fileURLWithPath: scratch.path("w/single.index"))))

        // The merged report has every node of the workflow once, all succeeded.
        let merged = try Self.decode(scratch.path("merged.json"))
        #expect(merged.nodes.count == 5 * 5 + 1)
        #expect(Set(merged.nodes.map(\.id)).count == merged.nodes.count)
        #expect(merged.nodes.allSatisfy { $0.status == .succeeded })
    }

    /// Shards at once on one state folder: each has its own journal, so neither waits for the other's lock, and a
    /// shard run again reuses its own results.
    @Test func shardsRunAtOnceAndResumeFromTheirOwnJournals() async throws {
        let scratch = try Scratch()
        let workflow = try Self.thumbnails(in: scratch)
        let first = try Flowrun.Running([workflow, "--shard", "1/2", "--no-progress", "--quiet"])
        let second = try Flowrun.Running([workflow, "--shard", "2/2", "--no-progress", "--quiet"])
        let results = try await offPool { [first.wait(timeout: 60), second.wait(timeout: 60)] }
        #expect(results.map { $0?.status } == [0, 0], "\(results.map { $0?.stderr ?? "timed out" })")
        let journals = try FileManager.default.contentsOfDirectory(atPath: scratch.path("w/.flowrun"))
        #expect(journals.contains("thumbs.yaml.shard-1-of-2.journal"), "\(journals)")
        #expect(journals.contains("thumbs.yaml.shard-2-of-2.journal"), "\(journals)")

        let again = try await Flowrun.runOffPool([workflow, "--shard", "2/2", "--no-progress"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("cached"), "\(again.stdout)")
        let gather = try await Flowrun.runOffPool(
            [workflow, "--gather", "--no-progress", "--report", scratch.path("merged.json")])
        #expect(gather.status == 0, "\(gather.stderr)")
        #expect(try Self.decode(scratch.path("merged.json")).nodes.count == 26)
    }

    @Test func aGatherWithAShardMissingNamesItAndRunsNothing() async throws {
        let scratch = try Scratch()
        let workflow = try Self.thumbnails(in: scratch)
        for index in [1, 3] {
            #expect(
                try await Flowrun.runOffPool([workflow, "--shard", "\(index)/3", "--no-progress", "--quiet"]).status
                    == 0)
        }
        let gather = try await Flowrun.runOffPool([
            workflow, "--gather", "--no-progress", "--report", scratch.path("merged.json"),
        ])
        #expect(gather.status == 1)
        // 5 photos in 3 shards: blocks 0..<1, 1..<3, 3..<5.
        #expect(gather.stderr.contains("shard 2/3 (items 1–2 of 'fetch')"), "\(gather.stderr)")
        #expect(gather.stderr.contains("nothing was run"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("w/out.index")))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("merged.json")))
    }

    @Test func aGatherBeforeAnyShardSaysSo() async throws {
        let scratch = try Scratch()
        let workflow = try Self.thumbnails(in: scratch)
        let gather = try await Flowrun.runOffPool([workflow, "--gather", "--no-progress"])
        #expect(gather.status == 1)
        #expect(gather.stderr.contains("no shard reports in"), "\(gather.stderr)")
    }

    @Test func reportsOfDifferentSplitsAreRefused() async throws {
        let scratch = try Scratch()
        let workflow = try Self.thumbnails(in: scratch)
        #expect(try await Flowrun.runOffPool([workflow, "--shard", "1/2", "--quiet", "--no-progress"]).status == 0)
        #expect(try await Flowrun.runOffPool([workflow, "--shard", "1/3", "--quiet", "--no-progress"]).status == 0)
        let gather = try await Flowrun.runOffPool([workflow, "--gather", "--no-progress"])
        #expect(gather.status == 2)
        #expect(gather.stderr.contains("split into 2 shards and 3 shards"), "\(gather.stderr)")
    }

    @Test(arguments: [
        (["--shard", "3/2"], "shard 3/2 does not exist"),
        (["--shard", "0/0"], "the shard count must be from 1"),
        (["--shard", "a/b"], "'a/b' is not a shard"),
        (["--shard", "1/2", "--gather"], "--shard and --gather exclude each other"),
    ])
    func badShardArgumentsExit2AndRunNothing(arguments: [String], message: String) async throws {
        let scratch = try Scratch()
        let workflow = try Self.thumbnails(in: scratch)
        let result = try await Flowrun.runOffPool([workflow] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("w/out")))
    }

    @Test func aWorkflowWithoutForEachRunsInShardOneOnly() async throws {
        let scratch = try Scratch()
        let workflow = try scratch.write(
            "one.yaml",
            "version: 1\ntasks:\n  make: { type: command, argv: [touch, made] , workingDirectory: \"\(scratch.url.path)\"}\n"
        )
        let second = try await Flowrun.runOffPool([workflow, "--shard", "2/2", "--no-progress"])
        #expect(second.status == 0)
        #expect(
            second.stderr.contains("nothing to run: the workflow has no forEach, so shard 1/2 runs it all"),
            "\(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("made")))
        #expect(try await Flowrun.runOffPool([workflow, "--shard", "1/2", "--no-progress"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: scratch.path("made")))
        #expect(try await Flowrun.runOffPool([workflow, "--gather", "--no-progress"]).status == 0)
    }

    /// The thumbnails workflow with a gather that reads values made in the shards: the checksum of each photo
    /// (a per-item command's output), fed to the gather's standard input.
    static func joining(in scratch: Scratch) throws -> String {
        _ = try thumbnails(in: scratch)
        return try scratch.write(
            "w/join.yaml",
            """
            version: 1
            params: { out: out }
            tasks:
              fetch: { type: fetch, forEach: { glob: "photos/*.jpg" }, url: "${item}" }
              decode: { type: decode, dependsOn: fetch }
              small: { type: resize, scale: 0.25, dependsOn: decode }
              save: { type: write, path: "${params.out}/${item.stem}.jpg", dependsOn: small }
              sum: { type: command, forEach: { glob: "photos/*.jpg" }, argv: [sha256sum, "${item}"] }
              join:
                type: command
                gather: true
                dependsOn: [sum, save]
                input: sum
                stdin: true
                argv: [sh, -c, "cat > ${params.out}/joined.txt"]
            """)
    }

    @Test func aGatherReadingValuesFromTheShardsMakesTheSameBytesAsOneRun() async throws {
        let scratch = try Scratch()
        let workflow = try Self.joining(in: scratch)
        let single = try await Flowrun.runOffPool([workflow, "--param", "out=single", "--no-progress"])
        #expect(single.status == 0, "\(single.stderr)")
        for index in 1...3 {
            let shard = try await Flowrun.runOffPool([
                workflow, "--param", "out=sharded", "--shard", "\(index)/3", "--no-progress", "--quiet",
            ])
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        // The values crossed through the store: the gather ran no node of the shards.
        let blobs = try FileManager.default.subpathsOfDirectory(atPath: scratch.path("w/.flowrun/blobs"))
        #expect(blobs.filter { $0.count > 60 }.count == 5, "one blob per sum: \(blobs)")
        // A dry run decides as the gather will: the values are read back, not run.
        let dry = try await Flowrun.runOffPool([workflow, "--param", "out=sharded", "--gather", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("sum   0 run, 5 cached"), "\(dry.stdout)")
        let gather = try await Flowrun.runOffPool([
            workflow, "--param", "out=sharded", "--gather", "--no-progress", "--report", scratch.path("merged.json"),
        ])
        #expect(gather.status == 0, "\(gather.stderr)")
        #expect(gather.stderr.isEmpty, "\(gather.stderr)")
        let expected = try Self.contents(of: scratch.path("w/single"))
        #expect(expected.count == 6)
        #expect(try Self.contents(of: scratch.path("w/sharded")) == expected)
        let merged = try Self.decode(scratch.path("merged.json"))
        #expect(merged.nodes.count == 5 * 5 + 1)
        #expect(Set(merged.nodes.map(\.id)).count == merged.nodes.count)
        #expect(merged.nodes.allSatisfy { $0.status == .succeeded }, "\(merged.nodes.map(\.status))")

        // Without the store the values cannot cross.
        let uncached = try await Flowrun.runOffPool([workflow, "--param", "out=sharded", "--gather", "--no-cache"])
        #expect(uncached.status == 2)
        #expect(uncached.stderr.contains("cannot run with --no-cache"), "\(uncached.stderr)")
    }

    @Test func aGatherWhoseValuesAreMissingNamesTheShardsAndRunsNothing() async throws {
        let scratch = try Scratch()
        let workflow = try Self.joining(in: scratch)
        for index in 1...2 {
            let shard = try await Flowrun.runOffPool([workflow, "--shard", "\(index)/2", "--no-progress", "--quiet"])
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        // Shard 2 ran items 2–4: its values' blobs are lost.
        let journal = try Data(
            contentsOf: URL(fileURLWithPath: scratch.path("w/.flowrun/join.yaml.shard-2-of-2.journal")))
        let blobs = scratch.path("w/.flowrun/blobs")
        for folder in try FileManager.default.contentsOfDirectory(atPath: blobs) {
            for name in try FileManager.default.contentsOfDirectory(atPath: blobs + "/" + folder)
            where journal.range(of: Data(name.utf8)) != nil {
                try FileManager.default.removeItem(atPath: blobs + "/" + folder + "/" + name)
            }
        }
        let gather = try await Flowrun.runOffPool([workflow, "--gather", "--no-progress"])
        #expect(gather.status == 1, "\(gather.stdout)\(gather.stderr)")
        #expect(
            gather.stderr.contains(
                "error: 3 values the gather reads are not in the store: shard 2/2 (items 2–4 of 'fetch', items 2–4 of 'sum'): sum[photos/seeding.jpg]: its stored output cannot be used"
            ), "\(gather.stderr)")
        #expect(
            gather.stderr.contains("run --shard 2/2 again with the same --state-dir, then --gather; nothing was run"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("w/out/joined.txt")), "the gather wrote")

        // Shard 2 run again stores its values again, and the gather runs.
        let again = try await Flowrun.runOffPool([workflow, "--shard", "2/2", "--no-progress"])
        #expect(again.status == 0, "\(again.stderr)")
        let retried = try await Flowrun.runOffPool([workflow, "--gather", "--no-progress"])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("w/out/joined.txt")))
    }

    // MARK: report merge

    @Test func reportMergeJoinsShardReportsAndWarnsAboutMissingOnes() async throws {
        let scratch = try Scratch()
        let workflow = try Self.thumbnails(in: scratch)
        for index in 1...3 {
            let run = try await Flowrun.runOffPool([
                workflow, "--shard", "\(index)/3", "--quiet", "--no-progress", "--report",
                scratch.path("s\(index).json"),
            ])
            #expect(run.status == 0)
        }
        let merged = try await Flowrun.runOffPool([
            "report", "merge", scratch.path("s3.json"), scratch.path("s1.json"), scratch.path("s2.json"), "-o",
            scratch.path("all.json"),
        ])
        #expect(merged.status == 0, "\(merged.stderr)")
        let report = try Self.decode(scratch.path("all.json"))
        #expect(
            report.nodes.map(\.id).prefix(5) == [
                "fetch[photos/aitzgorri.jpg]", "fetch[photos/friends.jpg]", "fetch[photos/seeding.jpg]",
                "fetch[photos/sunset.jpg]", "fetch[photos/wine.jpg]",
            ])
        #expect(report.nodes.count == 25)

        let partial = try await Flowrun.runOffPool([
            "report", "merge", scratch.path("s1.json"), scratch.path("s3.json"),
        ])
        #expect(partial.status == 0)
        #expect(partial.stderr.contains("warning: no report of shard 2/3"), "\(partial.stderr)")
        #expect(partial.stdout.contains("\"fetch[photos/wine.jpg]\""))
    }

    @Test func reportMergeRefusesWhatIsNotAReport() async throws {
        let scratch = try Scratch()
        let bogus = try scratch.write("bogus.json", "{\"hello\": 1}")
        let result = try await Flowrun.runOffPool(["report", "merge", bogus, scratch.path("absent.json")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("'\(bogus)' is not a flowrun run report"), "\(result.stderr)")
    }

    static func decode(_ path: String) throws -> RunReport {
        try RunReport(jsonData: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
