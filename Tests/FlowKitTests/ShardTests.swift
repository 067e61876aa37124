import FlowKitTesting
import Foundation
import Testing

@testable import FlowKit

/// Splitting a plan into shards: the `K/N` syntax, the item blocks, which nodes run where, and merging reports.
@Suite struct ShardTests {
    @Test(arguments: ["3/2", "0/0", "0/3", "a/b", "1", "1/", "/2", "1/2/3", "-1/2", "2/1000001", ""])
    func malformedOrImpossibleShardsAreRefused(text: String) {
        #expect(throws: ShardError.self) { try Shard(parsing: text) }
    }

    @Test func aShardReadsAndPrintsAsKOverN() throws {
        let shard = try Shard(parsing: "2/4")
        #expect(shard.index == 2 && shard.count == 4)
        #expect(shard.description == "2/4")
    }

    /// Every item lands in exactly one shard, in contiguous blocks that differ in size by at most one.
    @Test(arguments: [(0, 1), (1, 1), (1, 4), (5, 3), (10, 4), (200, 4), (7, 7), (3, 10), (1000, 7)])
    func blocksCoverEveryItemOnce(total: Int, count: Int) throws {
        var next = 0
        var sizes: [Int] = []
        for index in 1...count {
            let block = try Shard(index: index, count: count).items(of: total)
            #expect(block.lowerBound == next, "shard \(index)/\(count) of \(total) starts at \(block.lowerBound)")
            for item in block { #expect(Shard.containing(item: item, of: total, count: count) == index) }
            next = block.upperBound
            sizes.append(block.count)
        }
        #expect(next == total)
        #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
    }

    /// An item of a list made at run time goes to the shard its key names: the first 8 bytes of the key's SHA-256,
    /// big-endian, modulo the count, plus 1 — the same on every machine and in every process. The expected shards
    /// were computed apart, with Python's `hashlib`.
    @Test(arguments: [
        ("a", [1, 1, 2, 5]), ("b", [1, 1, 2, 1]), ("c", [1, 1, 3, 4]), ("photos/2024/é.jpg", [1, 2, 2, 2]),
        ("", [1, 1, 2, 2]),
    ])
    func aKeyNamesTheSameShardEverywhere(key: String, shards: [Int]) throws {
        #expect([1, 2, 3, 7].map { Shard.owner(ofItemKey: key, count: $0) } == shards)
        let shard = try Shard(index: shards[2], count: 3)
        #expect(shard.runs(itemKey: key))
        #expect(try Shard(index: shards[2] % 3 + 1, count: 3).runs(itemKey: key) == false)
    }

    /// Keys spread evenly: 30,000 keys over 7 shards, each within 5% of its share.
    @Test func keysSpreadEvenlyOverTheShards() {
        var counts = [Int](repeating: 0, count: 7)
        for index in 0..<30_000 { counts[Shard.owner(ofItemKey: "photo-\(index).jpg", count: 7) - 1] += 1 }
        let share = 30_000.0 / 7
        #expect(counts.allSatisfy { abs(Double($0) - share) < share * 0.05 }, "\(counts)")
    }

    /// With a list made at run time known, each item's nodes — of the fan-out and of the task zipped with it — go
    /// to the shard its key names, every item to exactly one shard; the lists step's nodes go to every shard; a
    /// static list beside it keeps its blocks.
    @Test func theItemsOfAListMadeAtRunTimeGoToTheShardsTheirKeysName() throws {
        let written = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              setup: { type: noop }
              list: { type: command, argv: [echo], dependsOn: setup }
              each: { type: noop, forEach: { from: list } }
              after: { type: noop, dependsOn: each }
              other: { type: noop, forEach: [x, y, z] }
              all: { type: noop, gather: true, dependsOn: after }
            """, registry: .builtIn)
        let keys = ["a", "b", "c", "photos/2024/é.jpg", "a]b", ""]
        let items = keys.map { ForEachItem(value: .string($0), key: $0) }
        let plan = try RunTimeLists(plan: written, options: SessionOptions()).replanned(with: [2: items])
        let split = ShardPlan(plan: plan)
        #expect(split.hasRunTimeLists)
        #expect(ids(plan, split.listNodes) == ["setup", "list"])
        var drawn: [String] = []
        for index in 1...3 {
            let shard = try Shard(index: index, count: 3)
            let nodes = ids(plan, split.nodes(in: shard))
            let own = keys.filter { Shard.owner(ofItemKey: $0, count: 3) == index }
            let block = shard.items(of: 3).map { ["x", "y", "z"][$0] }
            let expected = Set(
                (index == 1 ? ["setup", "list"] : []) + own.map { "each[\($0)]" } + own.map { "after[\($0)]" }
                    + block.map { "other[\($0)]" })
            #expect(nodes == plan.nodes.map(\.id).filter(expected.contains))
            drawn += own
            let described = ShardPlan.describe(split.items(in: shard))
            #expect(described.contains("of the 6 items of 'each' (by key)") == !own.isEmpty, "\(described)")
            #expect(own.isEmpty || described.contains("\(own.count) of the 6 items of 'each' (by key)"))
        }
        #expect(drawn.sorted() == keys.sorted())
        #expect(ids(plan, split.gatherNodes) == ["all"])
    }

    private static let pipeline = """
        version: 1
        tasks:
          setup: { type: noop }
          aside: { type: noop }
          each: { type: noop, forEach: [a, b, c, d, e], dependsOn: setup }
          after: { type: noop, dependsOn: each }
          all: { type: noop, gather: true, dependsOn: after }
          last: { type: noop, dependsOn: all }
        """

    private func ids(_ plan: Plan, _ nodes: [Int]) -> [String] { nodes.map { plan.nodes[$0].id } }

    @Test func aShardRunsItsItemsAndWhatTheyNeedButNoGather() throws {
        let plan = try TestWorkflow.plan(Self.pipeline, registry: TestTasks.registry)
        let split = ShardPlan(plan: plan)
        #expect(
            ids(plan, split.nodes(in: try Shard(parsing: "1/2"))) == [
                "setup", "aside", "each[a]", "each[b]", "after[a]", "after[b]",
            ])
        // Shard 2 needs `setup` (its items depend on it) but not `aside`, which shard 1 runs.
        #expect(
            ids(plan, split.nodes(in: try Shard(parsing: "2/2"))) == [
                "setup", "each[c]", "each[d]", "each[e]", "after[c]", "after[d]", "after[e]",
            ])
        #expect(ids(plan, split.gatherNodes) == ["all", "last"])
        #expect(split.tasksReadingShardOutputs.isEmpty)
    }

    @Test func aWorkflowWithoutForEachIsOneShard() throws {
        let plan = try TestWorkflow.plan(
            "version: 1\ntasks:\n  a: { type: noop }\n  b: { type: noop, dependsOn: a }\n", registry: TestTasks.registry
        )
        let split = ShardPlan(plan: plan)
        #expect(!split.hasItems)
        #expect(ids(plan, split.nodes(in: try Shard(parsing: "1/3"))) == ["a", "b"])
        #expect(split.nodes(in: try Shard(parsing: "2/3")).isEmpty)
        #expect(split.nodes(in: try Shard(parsing: "3/3")).isEmpty)
    }

    @Test func moreShardsThanItemsLeavesSomeEmpty() throws {
        let plan = try TestWorkflow.plan(
            "version: 1\ntasks:\n  each: { type: noop, forEach: [a, b] }\n", registry: TestTasks.registry)
        let split = ShardPlan(plan: plan)
        let runs = try (1...4).map { ids(plan, split.nodes(in: try Shard(index: $0, count: 4))) }
        #expect(runs == [[], ["each[a]"], [], ["each[b]"]])
    }

    @Test func aGatherThatReadsShardOutputsIsNamed() throws {
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              each: { type: command, forEach: [a, b], argv: [echo, "${item}"] }
              join: { type: command, gather: true, dependsOn: each, argv: [cat], stdin: true }
            """, registry: TestTasks.registry)
        #expect(ShardPlan(plan: plan).tasksReadingShardOutputs == ["join"])
    }

    @Test func aGatherThatOnlyWaitsReadsNothing() throws {
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              each: { type: command, forEach: [a, b], argv: [echo, "${item}"] }
              list: { type: command, gather: true, dependsOn: each, argv: [ls] }
              done: { type: noop, gather: true, dependsOn: each }
            """, registry: TestTasks.registry)
        #expect(ShardPlan(plan: plan).tasksReadingShardOutputs.isEmpty)
    }

    @Test func aRestrictedPlanKeepsOnlyTheEdgesBetweenItsNodes() throws {
        let plan = try TestWorkflow.plan(Self.pipeline, registry: TestTasks.registry)
        let split = ShardPlan(plan: plan)
        let gather = plan.restricted(to: split.gatherNodes)
        #expect(gather.nodes.map(\.id) == ["all", "last"])
        #expect(gather.dependencies(of: 0).isEmpty)
        #expect(gather.dependencies(of: 1) == [0])
        #expect(gather.dependents(of: 0) == [1])
    }

    // MARK: The gather phase

    private func report(_ plan: Plan, _ nodes: [Int], shard: String, failing: String? = nil) throws -> RunReport {
        let position = Dictionary(uniqueKeysWithValues: nodes.enumerated().map { ($1, $0) })
        let records = nodes.map { index in
            let node = plan.nodes[index]
            let failed = node.id == failing
            return RunReport.Node(
                id: node.id, task: plan.task(of: node).id.value, item: node.itemIndex, type: "noop", queue: "default",
                status: failed ? .failed : .succeeded, attempts: 1, code: failed ? "io" : nil,
                cause: failed ? "disk on fire" : nil, location: nil, continueOnError: false,
                spans: [RunReport.Span(start: 0, end: 0.5, lane: 0, attempt: 1)],
                dependencies: plan.dependencies(of: index).compactMap { position[$0] })
        }
        var report = RunReport(
            workflow: "w", path: "w.yaml", startedAt: Date(timeIntervalSince1970: 1000), duration: 1,
            interrupted: false, nodes: RunReport.Nodes(records), queueLimits: ["default": 2])
        report.shard = try Shard(parsing: shard)
        return report
    }

    @Test func theGatherPhaseNamesMissingShardsAndTheirItems() throws {
        let plan = try TestWorkflow.plan(Self.pipeline, registry: TestTasks.registry)
        let split = ShardPlan(plan: plan)
        let first = try report(plan, split.nodes(in: try Shard(parsing: "1/2")), shard: "1/2")
        guard case .failure(let missing) = GatherPhase.decide(split, count: 2, reports: [1: first]) else {
            Issue.record("a gather without shard 2 was allowed")
            return
        }
        #expect(missing.shards.map(\.shard.description) == ["2/2"])
        #expect("\(missing)".contains("shard 2/2 (items 2–4 of 'each')"), "\(missing)")
    }

    @Test func aShardReportWithoutAllItsNodesDoesNotCount() throws {
        let plan = try TestWorkflow.plan(Self.pipeline, registry: TestTasks.registry)
        let split = ShardPlan(plan: plan)
        let first = try report(plan, split.nodes(in: try Shard(parsing: "1/2")), shard: "1/2")
        let partial = try report(plan, Array(split.nodes(in: try Shard(parsing: "2/2")).dropLast()), shard: "2/2")
        guard case .failure(let missing) = GatherPhase.decide(split, count: 2, reports: [1: first, 2: partial]) else {
            Issue.record("an incomplete shard report was accepted")
            return
        }
        #expect("\(missing)".contains("has no node after[e]"), "\(missing)")
    }

    @Test func aFailedItemSkipsTheGatherAsASingleRunWould() throws {
        let plan = try TestWorkflow.plan(Self.pipeline, registry: TestTasks.registry)
        let split = ShardPlan(plan: plan)
        let reports = [
            1: try report(plan, split.nodes(in: try Shard(parsing: "1/2")), shard: "1/2"),
            2: try report(plan, split.nodes(in: try Shard(parsing: "2/2")), shard: "2/2", failing: "after[d]"),
        ]
        let phase = try GatherPhase.decide(split, count: 2, reports: reports).get()
        #expect(phase.nodesToRun.isEmpty)
        #expect(phase.skipped.map(\.id) == ["all", "last"])
        #expect(phase.skipped.allSatisfy { $0.status == .skipped })
        #expect(phase.skipped[0].cause == "upstream after[d] failed in its shard: disk on fire")

        let complete = try GatherPhase.decide(
            split, count: 2,
            reports: [1: reports[1]!, 2: try report(plan, split.nodes(in: try Shard(parsing: "2/2")), shard: "2/2")]
        ).get()
        #expect(ids(plan, complete.nodesToRun) == ["all", "last"])
    }

    // MARK: Merging reports

    @Test func mergingKeepsEveryNodeOnceInTaskAndItemOrder() throws {
        let plan = try TestWorkflow.plan(Self.pipeline, registry: TestTasks.registry)
        let split = ShardPlan(plan: plan)
        var second = try report(plan, split.nodes(in: try Shard(parsing: "2/2")), shard: "2/2")
        second.startedAt = Date(timeIntervalSince1970: 1010)
        let first = try report(plan, split.nodes(in: try Shard(parsing: "1/2")), shard: "1/2")
        let merged = RunReport.merging([second, first])
        #expect(
            merged.nodes.map(\.id) == [
                "setup", "each[a]", "each[b]", "each[c]", "each[d]", "each[e]", "after[a]", "after[b]", "after[c]",
                "after[d]", "after[e]", "aside",
            ])
        #expect(merged.startedAt == Date(timeIntervalSince1970: 1000))
        #expect(merged.duration == 11)
        // Shard 2's spans moved onto the earliest start: 10 s later.
        #expect(merged.node("each[e]")?.spans.first?.start == 10)
        #expect(merged.node("each[a]")?.spans.first?.start == 0)
        #expect(merged.shard == nil)
        // Dependencies are positions in the merged report, remapped from each shard's own.
        let ids = merged.nodes.map(\.id)
        #expect(merged.node("after[d]")?.dependencies.map { ids[$0] } == ["each[d]"])
        #expect(merged.node("each[a]")?.dependencies.map { ids[$0] } == ["setup"])
    }

    @Test func mergingWithThePlanRestoresTheEdgesIntoTheGather() throws {
        let plan = try TestWorkflow.plan(Self.pipeline, registry: TestTasks.registry)
        let split = ShardPlan(plan: plan)
        let shards = try (1...2).map {
            try report(plan, split.nodes(in: try Shard(index: $0, count: 2)), shard: "\($0)/2")
        }
        var gather = try report(plan, split.gatherNodes, shard: "1/1")
        gather.shard = nil
        let merged = RunReport.merging(shards + [gather], plan: plan)
        let ids = merged.nodes.map(\.id)
        #expect(
            merged.node("all")?.dependencies.map { ids[$0] } == [
                "after[a]", "after[b]", "after[c]", "after[d]", "after[e]",
            ])
        // Without the plan, the gather run's own report knows no edge into the shards.
        #expect(RunReport.merging(shards + [gather]).node("all")?.dependencies == [])
    }

    @Test func mergingPrefersTheShardWhereANodeSucceeded() throws {
        let plan = try TestWorkflow.plan(Self.pipeline, registry: TestTasks.registry)
        let split = ShardPlan(plan: plan)
        let failed = try report(plan, split.nodes(in: try Shard(parsing: "2/2")), shard: "2/2", failing: "setup")
        let succeeded = try report(plan, split.nodes(in: try Shard(parsing: "1/2")), shard: "1/2")
        #expect(RunReport.merging([failed, succeeded]).status(of: "setup") == .succeeded)
        #expect(RunReport.merging([succeeded, failed]).status(of: "setup") == .succeeded)
        #expect(RunReport.merging([failed, succeeded]).exitCode == 0)
    }

    @Test func aShardMakesTheRoundTripThroughJSON() throws {
        let plan = try TestWorkflow.plan(Self.pipeline, registry: TestTasks.registry)
        let original = try report(plan, [0, 1], shard: "3/7")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shard-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try original.write(toPath: scratch.path)
        #expect(try decoder.decode(RunReport.self, from: Data(contentsOf: scratch)).shard?.description == "3/7")
        #expect(try decoder.decode(RunReport.self, from: original.jsonData()).shard?.description == "3/7")
    }
}
