import Foundation
import Testing

/// Re-running through the built binary: what a second run reuses, what it redoes, and why.
@Suite struct StoreTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("photos"), withIntermediateDirectories: true)
        for name in Fixtures.photoNames {
            try Fixtures.photo(name).write(to: URL(fileURLWithPath: scratch.path("photos/\(name).jpg")))
        }
        try scratch.write("thumbs.yaml", Self.thumbnails)
    }

    /// 5 photos × (fetch, decode, tone, thumb, save) + one report: 26 nodes.
    static let thumbnails = """
        version: 1
        name: thumbs
        params:
          intensity: 0.8
        tasks:
          fetch: { type: fetch, forEach: { glob: "photos/*.jpg" }, url: "${item}" }
          decode: { type: decode, dependsOn: fetch }
          tone: { type: sepia, intensity: "${params.intensity}", dependsOn: decode }
          thumb: { type: resize, width: 32, dependsOn: tone }
          save: { type: write, path: "out/${item.stem}.jpg", dependsOn: thumb }
          report: { type: noop, gather: true, dependsOn: save }
        """

    func run(_ arguments: [String]) async throws -> Flowrun.Result {
        try await Child.runFlowrun(["thumbs.yaml", "--no-progress"] + arguments, in: scratch.url)
    }

    /// The stamps of the written thumbnails, by file name.
    func outputStamps() throws -> [String: String] {
        var stamps: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")) {
            var info = stat()
            #expect(stat(scratch.path("out/\(name)"), &info) == 0)
            stamps[name] = "\(info.st_ino) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_size)"
        }
        return stamps
    }

    /// The ids of the report's nodes with a status.
    func nodes(_ report: ReportView, _ status: String) -> Set<String> {
        Set(report.ids.filter { report.status($0) == status })
    }

    /// The chain of one item, named by its key: the photo's path (or, for a list of names, the name).
    static func chain(_ key: String) -> Set<String> {
        Set(["fetch", "decode", "tone", "thumb", "save"].map { "\($0)[\(key)]" })
    }

    @Test func anUnchangedRerunRunsNothingAndRewritesNothing() async throws {
        let first = try await run(["--report", "first.json"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("26 nodes: 26 succeeded"))
        let written = try outputStamps()
        #expect(written.count == 5)

        let second = try await run(["--report", "second.json", "--trace", "trace.json"])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("26 nodes: 26 cached"), "\(second.stdout)")
        #expect(second.stderr.isEmpty, "\(second.stderr)")
        #expect(try outputStamps() == written)
        let report = try ReportView(scratch.path("second.json"))
        #expect(nodes(report, "cached").count == 26)
        // Every node carries its key, the same in both runs; but the noop `report`, which is not keyed (nothing of
        // it is kept, and no node depends on it).
        let before = try ReportView(scratch.path("first.json"))
        #expect(report.node("report")?["key"] == nil && before.node("report")?["key"] == nil)
        for id in report.ids where id != "report" {
            let key = try #require(report.node(id)?["key"] as? String)
            #expect(key.count == 64)
            #expect(before.node(id)?["key"] as? String == key)
        }
        #expect(
            report.node("save[photos/aitzgorri.jpg]")?["key"] as? String != report.node("save[photos/friends.jpg]")?[
                "key"] as? String)
        // The trace shows each cached node as an instant, with its key.
        let trace = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("trace.json"))))
                as? [String: Any])
        let instants = (trace["traceEvents"] as? [[String: Any]] ?? []).filter { $0["ph"] as? String == "i" }
        #expect(instants.count == 26)
        #expect(instants.filter { (($0["args"] as? [String: Any])?["key"] as? String)?.count == 64 }.count == 25)
    }

    @Test func deletedOutputsRerunExactlyTheirChains() async throws {
        #expect(try await run([]).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted()
        try FileManager.default.removeItem(atPath: scratch.path("out/\(names[1])"))
        try FileManager.default.removeItem(atPath: scratch.path("out/\(names[3])"))

        let validate = try await Child.runFlowrun(["validate", "thumbs.yaml"], in: scratch.url)
        #expect(validate.stdout.contains("10 nodes will run, 16 cached"), "\(validate.stdout)")
        #expect(validate.stdout.contains("  save    2 run, 3 cached\n"), "\(validate.stdout)")
        #expect(
            validate.stdout.contains("save[photos/friends.jpg]: output missing: out/\(names[1])"), "\(validate.stdout)")
        #expect(validate.stdout.hasSuffix("valid: nothing was fetched, decoded or written\n"))

        let rerun = try await run(["--report", "run.json"])
        #expect(rerun.status == 0)
        #expect(rerun.stdout.contains("26 nodes: 10 succeeded, 16 cached"), "\(rerun.stdout)")
        let report = try ReportView(scratch.path("run.json"))
        #expect(nodes(report, "succeeded") == Self.chain("photos/friends.jpg").union(Self.chain("photos/sunset.jpg")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted() == names)
    }

    @Test func anOutputEditedByHandIsWrittenAgainAndExplained() async throws {
        #expect(try await run([]).status == 0)
        let path = scratch.path("out/sunset.jpg")
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        try (original + Data([0, 1, 2])).write(to: URL(fileURLWithPath: path))

        let explain = try await Child.runFlowrun(
            ["explain", "thumbs.yaml", "save[photos/sunset.jpg]"], in: scratch.url)
        #expect(explain.status == 0)
        #expect(explain.stdout.contains("save[photos/sunset.jpg] (key "), "\(explain.stdout)")
        #expect(explain.stdout.contains("runs: output changed since it was written: out/sunset.jpg"))

        let rerun = try await run(["--report", "run.json"])
        #expect(rerun.stdout.contains("26 nodes: 5 succeeded, 21 cached"), "\(rerun.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test func aTouchedButIdenticalOutputStaysCached() async throws {
        #expect(try await run([]).status == 0)
        // A modification time far in the future, content unchanged: compared by hash, still up to date.
        var times = [timespec(tv_sec: 4_000_000_000, tv_nsec: 0), timespec(tv_sec: 4_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, scratch.path("out/wine.jpg"), &times, 0) == 0)
        let rerun = try await run([])
        #expect(rerun.status == 0)
        #expect(rerun.stdout.contains("26 nodes: 26 cached"), "\(rerun.stdout)")
    }

    @Test func aChangedParameterRerunsWhatItReachesAndSaysWhy() async throws {
        #expect(try await run([]).status == 0)
        let dryRun = try await run(["--dry-run", "--param", "intensity=0.5"])
        #expect(dryRun.stdout.contains("  tone    5 run, 0 cached\n"), "\(dryRun.stdout)")
        let explain = try await Child.runFlowrun(
            ["explain", "thumbs.yaml", "save[photos/seeding.jpg]", "--param", "intensity=0.5"], in: scratch.url)
        #expect(
            explain.stdout.contains("    tone[photos/seeding.jpg] (key "), "\(explain.stdout)")
        #expect(explain.stdout.contains("runs: parameter 'intensity' changed (0.8 → 0.5)"), "\(explain.stdout)")
        #expect(explain.stdout.contains("save[photos/seeding.jpg] (key "))
        #expect(explain.stdout.contains("runs: upstream thumb[photos/seeding.jpg] changed"))

        let rerun = try await run(["--param", "intensity=0.5"])
        #expect(rerun.stdout.contains("26 nodes: 26 succeeded"), "\(rerun.stdout)")
        // Back to 0.8: the files now hold 0.5, so they are written again.
        let back = try await run([])
        #expect(back.stdout.contains("26 nodes: 26 succeeded"), "\(back.stdout)")
        #expect(try await run([]).stdout.contains("26 nodes: 26 cached"))
    }

    @Test func aChangedSourceRerunsOnlyItsChain() async throws {
        #expect(try await run([]).status == 0)
        try Fixtures.photo("friends").write(to: URL(fileURLWithPath: scratch.path("photos/wine.jpg")))
        let explain = try await Child.runFlowrun(["explain", "thumbs.yaml", "save[photos/wine.jpg]"], in: scratch.url)
        #expect(explain.stdout.contains("fetch[photos/wine.jpg] (key "), "\(explain.stdout)")
        #expect(
            explain.stdout.contains("runs: source changed: file photos/wine.jpg (size 94016 → 97014"),
            "\(explain.stdout)")
        let rerun = try await run(["--report", "run.json"])
        #expect(rerun.stdout.contains("26 nodes: 6 succeeded, 20 cached"), "\(rerun.stdout)")
        let report = try ReportView(scratch.path("run.json"))
        #expect(nodes(report, "succeeded") == Self.chain("photos/wine.jpg").union(["report"]))
    }

    @Test func forceRunsEverythingAndNoCacheLeavesNoStore() async throws {
        let uncached = try await run(["--no-cache"])
        #expect(uncached.status == 0)
        #expect(!FileManager.default.fileExists(atPath: scratch.path(".flowrun")))
        #expect(try await run([]).stdout.contains("26 nodes: 26 succeeded"))
        #expect(try await run(["--force"]).stdout.contains("26 nodes: 26 succeeded"))
        #expect(try await run([]).stdout.contains("26 nodes: 26 cached"))
        let conflicting = try await run(["--no-cache", "--force"])
        #expect(conflicting.status == 2)
        #expect(conflicting.stderr.contains("--no-cache runs everything already"))
    }

    @Test func rerunRedoesATaskAndWhatIsDownstreamOfIt() async throws {
        try scratch.write(
            "chain.yaml",
            """
            version: 1
            tasks:
              a: { type: sleep, duration: 0ms }
              b: { type: sleep, duration: 0ms, dependsOn: a }
              c: { type: sleep, duration: 0ms, dependsOn: b }
            """)
        let arguments = ["chain.yaml", "--no-progress", "--report", "run.json"]
        #expect(try await Child.runFlowrun(arguments, in: scratch.url).status == 0)
        let rerun = try await Child.runFlowrun(arguments + ["--rerun", "b"], in: scratch.url)
        #expect(rerun.stdout.contains("3 nodes: 2 succeeded, 1 cached"), "\(rerun.stdout)")
        let report = try ReportView(scratch.path("run.json"))
        #expect(
            report.status("a") == "cached" && report.status("b") == "succeeded" && report.status("c") == "succeeded")
        #expect(report.cause("a").isEmpty)
        let unknown = try await Child.runFlowrun(arguments + ["--rerun", "bb"], in: scratch.url)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("error: --rerun names no task of chain.yaml: 'bb' (did you mean 'b'?)"))
    }

    @Test func aFailedRunFollowedByAPlainRerunDoesOnlyTheMissingWork() async throws {
        try FileManager.default.moveItem(atPath: scratch.path("photos/seeding.jpg"), toPath: scratch.path("seeding"))
        try scratch.write(
            "listed.yaml",
            Self.thumbnails.replacingOccurrences(
                of: "{ glob: \"photos/*.jpg\" }",
                with: "[aitzgorri, friends, seeding, sunset, wine]"
            ).replacingOccurrences(of: "url: \"${item}\"", with: "url: \"photos/${item}.jpg\""))
        let arguments = ["listed.yaml", "--no-progress", "--report", "run.json"]
        let failed = try await Child.runFlowrun(arguments, in: scratch.url)
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("26 nodes: 20 succeeded, 1 failed, 5 skipped"), "\(failed.stdout)")
        try FileManager.default.moveItem(atPath: scratch.path("seeding"), toPath: scratch.path("photos/seeding.jpg"))
        let resumed = try await Child.runFlowrun(arguments, in: scratch.url)
        #expect(resumed.status == 0, "\(resumed.stdout)\(resumed.stderr)")
        #expect(resumed.stdout.contains("26 nodes: 6 succeeded, 20 cached"), "\(resumed.stdout)")
        let report = try ReportView(scratch.path("run.json"))
        #expect(nodes(report, "succeeded") == Self.chain("seeding").union(["report"]))
    }

    @Test func commandsRunEveryTimeUnlessTheyAskToBeCached() async throws {
        try scratch.write(
            "log.yaml",
            """
            version: 1
            tasks:
              always: { type: command, argv: [sh, -c, "echo always >> log.txt"] }
              once: { type: command, argv: [sh, -c, "echo once >> log.txt"], cache: true }
            """)
        for _ in 0..<2 {
            let result = try await Child.runFlowrun(["log.yaml", "--no-progress"], in: scratch.url)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        let log = try String(contentsOfFile: scratch.path("log.txt"), encoding: .utf8)
        #expect(log.split(separator: "\n").sorted() == ["always", "always", "once"])
        let validate = try await Child.runFlowrun(["validate", "log.yaml"], in: scratch.url)
        #expect(validate.stdout.contains("always: never reused without `cache: true` (side effects)"))
    }

    @Test func cacheStatusAndClean() async throws {
        #expect(try await run([]).status == 0)
        let status = try await Child.runFlowrun(["cache", "status", "thumbs.yaml"], in: scratch.url)
        #expect(status.status == 0)
        // Every node but the noop `report`, of which nothing is kept.
        #expect(status.stdout.hasPrefix("store .flowrun: 25 results (25 records in the journal), "), "\(status.stdout)")
        #expect(try await run(["--force"]).status == 0)
        let kept = try await Child.runFlowrun(["cache", "clean", "--keep-last", "thumbs.yaml"], in: scratch.url)
        #expect(kept.stdout.contains("25 results (25 records in the journal)"), "\(kept.stdout)")
        #expect(try await run([]).stdout.contains("26 nodes: 26 cached"))
        let cleaned = try await Child.runFlowrun(["cache", "clean", "thumbs.yaml"], in: scratch.url)
        #expect(cleaned.stdout.hasPrefix("cleaned; store .flowrun: 0 results (0 records in the journal)"))
        #expect(try await run([]).stdout.contains("26 nodes: 26 succeeded"))
    }

    @Test func aNoopAKeptNodeDependsOnIsKeyedButNotJournaled() async throws {
        try scratch.write(
            "noops.yaml",
            """
            version: 1
            tasks:
              a: { type: noop }
              b: { type: noop, dependsOn: a }
              s: { type: sleep, duration: 1ms, dependsOn: b }
            """)
        #expect(try await Child.runFlowrun(["noops.yaml"], in: scratch.url).status == 0)
        let status = try await Child.runFlowrun(["cache", "status", "noops.yaml"], in: scratch.url)
        #expect(status.stdout.hasPrefix("store .flowrun: 1 result (1 record in the journal), "), "\(status.stdout)")
        let rerun = try await Child.runFlowrun(["noops.yaml"], in: scratch.url)
        #expect(rerun.stdout.contains("3 nodes: 3 cached"), "\(rerun.stdout)")
    }

    @Test func aStateDirKeepsTheStoreElsewhere() async throws {
        #expect(try await run(["--state-dir", "elsewhere"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: scratch.path(".flowrun")))
        #expect(FileManager.default.fileExists(atPath: scratch.path("elsewhere/thumbs.yaml.journal")))
        #expect(try await run(["--state-dir", "elsewhere"]).stdout.contains("26 nodes: 26 cached"))
        #expect(try await run([]).stdout.contains("26 nodes: 26 succeeded"))
    }

    @Test func cacheContentIdentifiesASourceByItsHash() async throws {
        try scratch.write(
            "content.yaml",
            StoreTests.thumbnails.replacingOccurrences(
                of: "url: \"${item}\" }", with: "url: \"${item}\", cache: content }"))
        let arguments = ["content.yaml", "--no-progress"]
        #expect(try await Child.runFlowrun(arguments, in: scratch.url).status == 0)
        // A new modification time, the same bytes: by hash, nothing changed.
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, scratch.path("photos/wine.jpg"), &times, 0) == 0)
        let touched = try await Child.runFlowrun(arguments, in: scratch.url)
        #expect(touched.stdout.contains("26 nodes: 26 cached"), "\(touched.stdout)")
        #expect(
            !FileManager.default.fileExists(atPath: scratch.path(".flowrun/blobs")),
            "`cache: content` copied a source into the store")
        // Without `cache: content` a touch is found unchanged too, by the digest the read recorded; other bytes
        // rerun that photo's chain.
        #expect(try await run([]).status == 0)
        var later = [timespec(tv_sec: 1_000_000_100, tv_nsec: 0), timespec(tv_sec: 1_000_000_100, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, scratch.path("photos/wine.jpg"), &later, 0) == 0)
        #expect(try await run([]).stdout.contains("26 nodes: 26 cached"))
        try Fixtures.photo("friends").write(to: URL(fileURLWithPath: scratch.path("photos/wine.jpg")))
        #expect(try await run([]).stdout.contains("26 nodes: 6 succeeded, 20 cached"))
    }

    @Test func explainNamesAnUnknownNodeWithASuggestion() async throws {
        let result = try await Child.runFlowrun(["explain", "thumbs.yaml", "sav[photos/friends.jpg]"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "error: thumbs.yaml has no node 'sav[photos/friends.jpg]' (did you mean 'save[photos/friends.jpg]'?)\n",
            "\(result.stderr)")
        let cold = try await Child.runFlowrun(["explain", "thumbs.yaml", "save[photos/friends.jpg]"], in: scratch.url)
        #expect(cold.status == 0)
        #expect(cold.stdout.contains("runs: new item (no result recorded for this item"), "\(cold.stdout)")
    }

    @Test func tasksAndTheSchemaShowTheCacheSetting() async throws {
        let tasks = try await Child.runFlowrun(["tasks", "command", "write"], in: scratch.url)
        #expect(tasks.stdout.contains("cache: always runs (side effects); `cache: true` to reuse results across runs"))
        #expect(tasks.stdout.contains("cache: results reused across runs (implementation 5 libjpeg-turbo "))
        let schema = try await Child.runFlowrun(["schema"], in: scratch.url)
        #expect(schema.stdout.contains("\"cache\""))
    }
}
