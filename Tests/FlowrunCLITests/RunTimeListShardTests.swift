import Foundation
import Testing

/// A list made at run time (`forEach: { from: TASK }`) split into shards through the binary: the lists step runs
/// the producer once, each shard takes the items whose keys name it, and the gather sees every item in list order.
@Suite struct RunTimeListShardTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    /// The items the producer prints, in its order (not sorted: the gather must keep it).
    static let items = ["kiwi", "apple", "fig", "plum", "date", "lime", "pear", "cherry", "mango", "grape", "lemon"]

    /// `list` prints ``items`` and notes each time it runs in `produced.txt`; each item notes itself in `ran.txt`
    /// and prints itself; `all` gathers what the items printed into `all.txt`.
    /// - Parameters:
    ///   - name: The workflow file's path in `scratch`.
    ///   - cache: Whether `list` is `cache: true`, so the store replays its list.
    @discardableResult
    static func writeFlow(in scratch: Scratch, at name: String = "flow.yaml", cache: Bool = true) throws -> String {
        let lines = items.joined(separator: "\\n")
        return try scratch.write(
            name,
            """
            version: 1
            tasks:
              list: { type: command,\(cache ? " cache: true," : "") argv: [sh, -c, "echo ran >> produced.txt; printf '\(lines)'"] }
              each:
                type: command
                cache: true
                forEach: { from: list }
                argv: [sh, -c, "echo \\"$0\\" >> ran.txt; echo \\"$0\\"", "${item}"]
              all: { type: command, gather: true, dependsOn: each, stdin: true, argv: [sh, -c, "cat > all.txt"] }
            """)
    }

    private func writeFlow() throws {
        try Self.writeFlow(in: scratch)
    }

    private func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        try await Child.runFlowrun(["flow.yaml", "--no-progress"] + arguments, in: scratch.url)
    }

    private func lines(_ name: String) throws -> [String] {
        try String(contentsOfFile: scratch.path(name), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// The ids of a report's nodes of task `each`.
    private func items(in report: ReportView) -> [String] {
        report.ids.filter { $0.hasPrefix("each[") }
    }

    @Test func threeShardsRunEveryItemOnceAndTheGatherSeesThemInListOrder() async throws {
        try writeFlow()
        let lists = try await flowrun(["--lists"])
        #expect(lists.status == 0, "\(lists.stdout)\(lists.stderr)")
        var drawn: [String] = []
        for index in 1...3 {
            let shard = try await flowrun(["--shard", "\(index)/3", "--report", "shard-\(index).json"])
            #expect(shard.status == 0, "\(shard.stdout)\(shard.stderr)")
            let report = try ReportView(scratch.path("shard-\(index).json"))
            // Every shard replays the list the lists step made, and reports it.
            #expect(report.status("list") == "cached")
            let own = items(in: report)
            #expect(report.ids == ["list"] + own)
            #expect(own.allSatisfy { report.status($0) == "succeeded" })
            #expect(
                shard.stderr.contains(
                    "shard \(index)/3: \(own.count + 1) nodes, \(own.count) of the 11 items of 'each' (by key)\n"),
                "\(shard.stderr)")
            drawn += own
        }
        #expect(drawn.sorted() == Self.items.map { "each[\($0)]" }.sorted())
        #expect(try lines("ran.txt").sorted() == Self.items.sorted(), "an item ran twice or not at all")
        #expect(try lines("produced.txt") == ["ran"], "the producer ran more than once")

        let gather = try await flowrun(["--gather", "--report", "merged.json"])
        #expect(gather.status == 0, "\(gather.stdout)\(gather.stderr)")
        #expect(try lines("all.txt") == Self.items)
        let merged = try ReportView(scratch.path("merged.json"))
        #expect(merged.ids == ["list"] + Self.items.map { "each[\($0)]" } + ["all"])
        #expect(try lines("produced.txt") == ["ran"], "the gather ran the producer")
    }

    /// The split depends only on the keys: the list printed in another order gives each shard the same items.
    @Test func aShardDrawsTheSameItemsWhateverTheListsOrder() async throws {
        try writeFlow()
        let first = try await flowrun(["--shard", "2/3", "--report", "first.json"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let reversed = Self.items.reversed().joined(separator: "\\n")
        try scratch.write(
            "flow.yaml",
            try String(contentsOfFile: scratch.path("flow.yaml"), encoding: .utf8).replacingOccurrences(
                of: Self.items.joined(separator: "\\n"), with: reversed))
        let second = try await flowrun(["--shard", "2/3", "--report", "second.json"])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        let before = items(in: try ReportView(scratch.path("first.json")))
        let after = items(in: try ReportView(scratch.path("second.json")))
        #expect(!before.isEmpty)
        #expect(Set(after) == Set(before))
        #expect(after == before.reversed())
    }

    /// Without the lists step the first shard runs the producer itself; the others replay its list.
    @Test func withoutTheListsStepTheFirstShardMakesTheListAndTheOthersReplayIt() async throws {
        try writeFlow()
        for index in 1...3 {
            let shard = try await flowrun(["--shard", "\(index)/3", "--report", "shard-\(index).json"])
            #expect(shard.status == 0, "\(shard.stdout)\(shard.stderr)")
            #expect(
                try ReportView(scratch.path("shard-\(index).json")).status("list")
                    == (index == 1 ? "succeeded" : "cached"))
        }
        #expect(try lines("produced.txt") == ["ran"])
        let gather = try await flowrun(["--gather"])
        #expect(gather.status == 0, "\(gather.stdout)\(gather.stderr)")
        #expect(try lines("all.txt") == Self.items)
    }

    @Test func theDryRunOfAShardSaysWhichItemsItRunsOnceTheStoreKnowsTheList() async throws {
        try writeFlow()
        let unknown = try await flowrun(["--shard", "2/3", "--dry-run"])
        #expect(unknown.status == 0, "\(unknown.stderr)")
        #expect(unknown.stdout.contains("\nthe list of 'each' is known only after 'list' runs\n"), "\(unknown.stdout)")
        let lists = try await flowrun(["--lists"])
        #expect(lists.status == 0, "\(lists.stdout)\(lists.stderr)")
        let known = try await flowrun(["--shard", "2/3", "--dry-run", "--plan", "nodes"])
        #expect(known.status == 0, "\(known.stderr)")
        // The keys whose SHA-256 names shard 2 of 3 (ShardTests pins the hash), in list order.
        #expect(
            known.stdout == """
                flow: 3 tasks → 6 nodes in 1 wave
                queues: default (cores)

                wave 1
                  list         command  default
                  each[apple]  command  default
                  each[fig]    command  default
                  each[date]   command  default
                  each[pear]   command  default
                  each[mango]  command  default

                the list of 'each': 11 items, as 'list' printed it last (5 of them in this part)

                store .flowrun: 1 result recorded; 5 nodes will run, 1 cached
                  list  0 run, 1 cached
                  each  5 run, 0 cached
                    each[apple]: new item (no result recorded for this item: not run before, or it did not finish)
                    each[fig]: new item (no result recorded for this item: not run before, or it did not finish)
                    each[date]: new item (no result recorded for this item: not run before, or it did not finish)
                    each[pear]: new item (no result recorded for this item: not run before, or it did not finish)
                    each[mango]: new item (no result recorded for this item: not run before, or it did not finish)

                valid: nothing was fetched, decoded or written

                """)
        #expect(known.stderr == "shard 2/3: 6 nodes, 5 of the 11 items of 'each' (by key)\n")
    }

    /// A producer that fails fails every shard — each reports it —, no item runs, and the gather finds no list.
    @Test func aProducerThatFailsFailsEveryShardAndNoItemRuns() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              list: { type: command, cache: true, argv: [sh, -c, "echo a; echo b; exit 3"] }
              each: { type: command, forEach: { from: list }, argv: [sh, -c, "echo \\"$0\\" >> ran.txt", "${item}"] }
              all: { type: noop, gather: true, dependsOn: each }
            """)
        for index in 1...2 {
            let shard = try await flowrun(["--shard", "\(index)/2", "--report", "shard-\(index).json"])
            #expect(shard.status == 1, "\(shard.stdout)\(shard.stderr)")
            let report = try ReportView(scratch.path("shard-\(index).json"))
            #expect(report.ids == ["list"])
            #expect(report.cause("list") == "'sh' exited with status 3 (nothing on standard error)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("ran.txt")))
        let gather = try await flowrun(["--gather"])
        #expect(gather.status == 1)
        #expect(gather.stderr.hasPrefix("error: the store has no list of 'each' (from 'list')"), "\(gather.stderr)")
    }

    @Test func aGatherBeforeTheListIsMadeSaysSoAndRunsNothing() async throws {
        try writeFlow()
        let gather = try await flowrun(["--gather"])
        #expect(gather.status == 1)
        #expect(
            gather.stderr
                == "error: the store has no list of 'each' (from 'list'): run the lists step (--lists) or the shards (--shard K/N) first, with the same --state-dir; nothing was run\n"
        )
        #expect(!FileManager.default.fileExists(atPath: scratch.path("produced.txt")))
    }

    @Test func theListsStepOfAWorkflowWithoutAListMadeAtRunTimeRunsNothing() async throws {
        try scratch.write(
            "flow.yaml", "version: 1\ntasks:\n  each: { type: command, forEach: [a], argv: [touch, ran] }\n")
        let result = try await flowrun(["--lists"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "--lists: the workflow makes no list at run time; nothing to run\n")
        #expect(result.stdout.hasPrefix("0 nodes: nothing to do in "), "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("ran")))
    }

    @Test(arguments: [["--lists", "--shard", "1/2"], ["--lists", "--gather"]])
    func theListsStepExcludesTheOtherParts(arguments: [String]) async throws {
        try writeFlow()
        let result = try await flowrun(arguments)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "Error: --lists excludes --shard and --gather: run --lists once, then the shards, then --gather once\n"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("produced.txt")))
    }
}
