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
    /// - Throws: `ExitCode(2)` when a gather task reads shard outputs, `ExitCode(1)` when shards are missing.
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
    let finish: (RunReport) throws -> RunReport

    static func shard(_ shard: Shard, of plan: Plan, reports: ShardReports, terminal: Terminal, quiet: Bool) throws
        -> RunPart
    {
        let split = ShardPlan(plan: plan)
        try refuseShardOutputs(split, terminal: terminal)
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
        return RunPart(plan: plan.restricted(to: nodes), journal: "shard-\(shard.index)-of-\(shard.count)") { result in
            var result = result
            result.shard = shard
            try reports.write(result, terminal: terminal)
            return result
        }
    }

    static func gather(of plan: Plan, reports: ShardReports, terminal: Terminal) throws -> RunPart {
        let split = ShardPlan(plan: plan)
        try refuseShardOutputs(split, terminal: terminal)
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
            return RunPart(plan: plan.restricted(to: phase.nodesToRun), journal: "gather") { result in
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

    /// Exit 2 when a gather task reads what the shards made: those values live in the shards' memory.
    static func refuseShardOutputs(_ split: ShardPlan, terminal: Terminal) throws {
        let readers = split.tasksReadingShardOutputs
        guard !readers.isEmpty else { return }
        let names = readers.map { "'\($0)'" }.joined(separator: ", ")
        terminal.error(
            """
            error: gather task \(names) reads outputs made in the shards; values do not cross machines yet (the store \
            does not keep outputs), so this workflow cannot be split; nothing was run
                hint: make the gather read files the shards wrote (a write, then a command or noop that depends on it), \
            or run the workflow without --shard/--gather

            """)
        throw ExitCode(2)
    }
}
