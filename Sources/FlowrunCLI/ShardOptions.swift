import ArgumentParser
import FlowKit
import Foundation

/// `--shard K/N` and `--gather`: one part of a run split over machines.
struct ShardOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Run only shard K of N (K from 1): its block of forEach items and what depends only on them.",
            valueName: "K/N"))
    var shard: String?

    @Flag(help: "Run the gather tasks (and what follows them) after every shard finished, and merge the reports.")
    var gather = false

    func validate() throws {
        if shard != nil && gather {
            throw ValidationError("--shard and --gather exclude each other: run the shards first, then --gather once")
        }
        if let shard {
            do { _ = try Shard(parsing: shard) } catch { throw ValidationError("--shard: \(error)") }
        }
    }

    /// The part of `plan` this invocation runs.
    /// - Parameter stateDirectory: The state folder given (`--state-dir`), where shard reports are kept.
    /// - Throws: `ExitCode(1)` when shards are missing.
    func part(of plan: Plan, stateDirectory: String?, terminal: Terminal, quiet: Bool) throws -> RunPart {
        let reports = ShardReports(workflowPath: plan.workflow.path, stateDirectory: stateDirectory)
        if let shard, let parsed = try? Shard(parsing: shard) {
            return try RunPart.shard(parsed, of: plan, reports: reports, terminal: terminal, quiet: quiet)
        }
        if gather { return try RunPart.gather(of: plan, reports: reports, terminal: terminal) }
        return RunPart(plan: plan, journal: nil, finish: { $0 })
    }
}

/// The nodes one invocation runs — the whole plan, a shard's or the gather phase's — and what it does with the
/// report once they ran.
struct RunPart {
    let plan: Plan
    /// The part's own journal in the store (`shard-2-of-4`, `gather`), `nil` for a whole run.
    var journal: String?
    /// In a shard: the nodes, by index in ``plan``, whose outputs the gather phase reads; the store keeps them.
    var keepValues: Set<Int> = []
    /// In a gather phase that reads values the shards made: what the store decides with.
    var values: GatherValues?
    let finish: (RunReport) throws -> RunReport

    init(
        plan: Plan, journal: String?, keepValues: Set<Int> = [], values: GatherValues? = nil,
        finish: @escaping (RunReport) throws -> RunReport
    ) {
        self.plan = plan
        self.journal = journal
        self.keepValues = keepValues
        self.values = values
        self.finish = finish
    }

    static func shard(_ shard: Shard, of plan: Plan, reports: ShardReports, terminal: Terminal, quiet: Bool) throws
        -> RunPart
    {
        let split = ShardPlan(plan: plan)
        let nodes = split.nodes(in: shard)
        if !quiet {
            let items = ShardPlan.describe(split.items(in: shard))
            let what =
                nodes.isEmpty
                ? (split.hasItems
                    ? "no items fall in it" : "the workflow has no forEach, so shard 1/\(shard.count) runs it all")
                : "\(nodes.count) node\(nodes.count == 1 ? "" : "s")" + (items.isEmpty ? "" : ", " + items)
            terminal.error("shard \(shard): \(nodes.isEmpty ? "nothing to run: " : "")\(what)\n")
        }
        let crossing = Set(split.valueNodes)
        let keep = Set(nodes.indices.filter { crossing.contains(nodes[$0]) })
        return RunPart(
            plan: plan.restricted(to: nodes), journal: "shard-\(shard.index)-of-\(shard.count)", keepValues: keep
        ) { result in
            var result = result
            result.shard = shard
            try reports.write(result, terminal: terminal)
            return result
        }
    }

    static func gather(of plan: Plan, reports: ShardReports, terminal: Terminal) throws -> RunPart {
        let split = ShardPlan(plan: plan)
        let shardReports = try reports.readAll(terminal: terminal)
        guard let count = shardReports.first?.value.shard?.count else {
            terminal.error(
                "error: no shard reports in \(reports.directory): run the shards (--shard K/N) first; nothing was run\n"
            )
            throw ExitCode(1)
        }
        switch GatherPhase.decide(split, count: count, reports: shardReports) {
        case .failure(let missing):
            terminal.error("error: \(missing); nothing was run\n")
            throw ExitCode(1)
        case .success(let phase):
            let finished = (1...count).compactMap { shardReports[$0] }
            let skipped = phase.skipped
            let values = GatherValues(split: split, phase: phase, count: count)
            return RunPart(
                plan: plan.restricted(to: values?.nodes ?? phase.nodesToRun), journal: "gather", values: values
            ) {
                result in
                var parts = finished + [result]
                if !skipped.isEmpty {
                    parts.append(
                        RunReport(
                            workflow: result.workflow, path: result.path, startedAt: result.startedAt, duration: 0,
                            interrupted: false, nodes: RunReport.Nodes(skipped), queueLimits: result.queueLimits))
                }
                return RunReport.merging(parts, plan: plan)
            }
        }
    }
}

/// What a gather phase reading values the shards made decides with: the whole plan (keys chain through the shards'
/// nodes), the nodes it runs — the gather nodes and the shard nodes whose values they read, restored from the
/// store — and the shards' journals, where those values are recorded.
struct GatherValues {
    let split: ShardPlan
    /// The nodes of the gather phase's plan, by index in the whole plan, ascending.
    let nodes: [Int]
    /// Those of ``nodes`` made in the shards, whose values are read back.
    let valueNodes: [Int]
    /// How many shards the run was split into.
    let count: Int

    /// `nil` when no gather node that runs reads a value made in a shard.
    init?(split: ShardPlan, phase: GatherPhase, count: Int) {
        let crossing = Set(split.valueNodes)
        var needed = Set<Int>()
        for index in phase.nodesToRun {
            for dependency in split.plan.dependencies(of: index) where crossing.contains(dependency) {
                needed.insert(dependency)
            }
        }
        guard !needed.isEmpty else { return nil }
        self.split = split
        valueNodes = needed.sorted()
        nodes = (needed.union(phase.nodesToRun)).sorted()
        self.count = count
    }

    /// The journals of the shards, by part name.
    var shardJournals: [String] { (1...count).map { "shard-\($0)-of-\(count)" } }

    /// What an error says of values that cannot be read back: by shard, its items, and each node's cause.
    func describeMissing(_ missing: [(node: Int, cause: String)]) -> String {
        var byShard: [Int: [String]] = [:]
        for (node, cause) in missing {
            let shard = split.shard(of: node, count: count)?.index ?? 1
            byShard[shard, default: []].append("\(split.plan.nodes[node].id): \(cause)")
        }
        return byShard.keys.sorted().map { index in
            // `index` is from 1 to `count`, as `shard(of:count:)` makes it.
            let shard =
                (try? Shard(index: index, count: count)).map { shard in
                    let items = ShardPlan.describe(split.items(in: shard))
                    return "shard \(shard)" + (items.isEmpty ? "" : " (\(items))")
                } ?? "shard \(index)/\(count)"
            let nodes = byShard[index] ?? []
            let shown =
                nodes.prefix(5).joined(separator: "; ") + (nodes.count > 5 ? "; and \(nodes.count - 5) more" : "")
            return "\(shard): \(shown)"
        }.joined(separator: "; ")
    }

    /// The shards to run again, as `--shard` takes them.
    func shardsToRerun(_ missing: [(node: Int, cause: String)]) -> [String] {
        Set(missing.map { split.shard(of: $0.node, count: count)?.index ?? 1 }).sorted().map { "\($0)/\(count)" }
    }
}
