import ArgumentParser
import FlowKit
import Foundation
import OrderedCollections

/// `flowrun export slurm|argo WORKFLOW --shards N`: a workflow split into shards, as a scheduler's job.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print a workflow split into shards as a Slurm submit script or an Argo Workflow manifest.",
        subcommands: [ExportSlurmCommand.self, ExportArgoCommand.self])
}

/// What both exports take: the workflow, its params and the split.
struct ExportOptions: ParsableArguments {
    @OptionGroup var workflow: WorkflowOptions

    @Option(help: ArgumentHelp("Split the forEach items into N shards, one job each.", valueName: "N"))
    var shards: Int

    func validate() throws {
        if shards < 1 || shards > Shard.maxCount {
            throw ValidationError("--shards must be from 1 to \(Shard.maxCount), found \(shards)")
        }
    }

    /// Loads the workflow and warns about paths other machines may not see.
    func load(terminal: Terminal) throws -> ExportedWorkflow {
        // Each job checks the programs and scripts where it runs: a container's are not here.
        let plan = try workflow.loadPlan(terminal: terminal, checksFiles: false)
        let split = ShardPlan(plan: plan)
        let exported = ExportedWorkflow(split: split, overrides: workflow.params)
        for path in exported.pathsOutsideFolder() {
            terminal.error(
                "warning: '\(path)' lies outside the workflow's folder or is absolute: every node must see it at the same path\n"
            )
        }
        for producer in split.producersNotReplayed {
            terminal.error(
                "warning: task '\(producer)' makes a list at run time but the store does not reuse its result "
                    + "(a command needs `cache: true`): every shard runs it again instead of replaying the lists "
                    + "job's list, so it must print the same list on every machine\n")
        }
        if !split.hasItems && shards > 1 {
            terminal.error("warning: \(plan.workflow.path) has no forEach: shard 1 runs it all, the others nothing\n")
        }
        return exported
    }
}

/// The facts of a workflow both exports write down.
struct ExportedWorkflow {
    let split: ShardPlan
    /// The `--param` overrides given to the export, passed on to every job.
    let overrides: [String]

    var plan: Plan { split.plan }

    /// The workflow file's absolute path.
    var absolutePath: String { URL(fileURLWithPath: plan.workflow.path).standardizedFileURL.path }

    /// The workflow's folder, absolute.
    var folder: String { URL(fileURLWithPath: absolutePath).deletingLastPathComponent().path }

    /// The CPUs a job asks for: the largest limit among the queues its tasks run on, 1 if none declares one. The
    /// jobs pass it as `--max-concurrent`, so `default` runs as many nodes at once as the job has CPUs.
    var cpus: Int {
        let used = Set(plan.workflow.tasks.map(\.queueName))
        return plan.workflow.queues.values.filter { used.contains($0.name) }.compactMap(\.maxConcurrent).max() ?? 1
    }

    /// The most retries of any task: a job is retried as often as its most retried node.
    var maxRetries: Int { plan.workflow.tasks.map(\.retries).max() ?? 0 }

    /// How many nodes of each task, by task index, the largest shard of `count` runs: a block of the largest size
    /// of every expanded task, and every node without items (shard 1 runs them all); `nil` when a list made at run
    /// time decides it.
    func largestShard(of count: Int) -> [Int: Int]? {
        guard !split.hasRunTimeLists else { return nil }
        var perTask: [Int: Int] = [:]
        for (index, node) in plan.nodes.enumerated() where !split.isGathered[index] {
            perTask[node.taskIndex, default: 0] += 1
        }
        return perTask.mapValues { ($0 + count - 1) / count }
    }

    /// How many nodes of each task, by task index, the lists step runs: the producers of the lists made at run
    /// time and what they need.
    var listsStep: [Int: Int] {
        split.listNodes.reduce(into: [:]) { counts, index in counts[plan.nodes[index].taskIndex, default: 0] += 1 }
    }

    /// How many nodes of each task, by task index, the gather phase runs.
    var gatherPhase: [Int: Int] {
        split.gatherNodes.reduce(into: [:]) { counts, index in counts[plan.nodes[index].taskIndex, default: 0] += 1 }
    }

    /// The longest a part can take when every task in it has a `timeout`: per task, its nodes in waves of its
    /// queue's limit (`default`'s is ``cpus``, as the jobs pass `--max-concurrent`), every attempt timing out,
    /// plus a minute for backoff and start-up. `nil` when a task has no timeout: nothing bounds the part.
    /// - Parameter nodesPerTask: How many nodes of each task, by task index, the part runs; `nil` when not known
    ///   before the run.
    func deadline(of nodesPerTask: [Int: Int]?) -> Int? {
        guard let nodesPerTask else { return nil }
        var seconds = 60.0
        for (taskIndex, count) in nodesPerTask {
            let task = plan.workflow.tasks[taskIndex]
            guard let timeout = task.timeout else { return nil }
            let limit = plan.workflow.queues[task.queueName]?.maxConcurrent ?? cpus
            let waves = (count + limit - 1) / limit
            let (whole, attoseconds) = timeout.components
            seconds += Double(waves * (task.retries + 1)) * (Double(whole) + Double(attoseconds) / 1e18)
        }
        return Int(seconds.rounded(.up))
    }

    /// Local paths, as the first node of each task resolves them, that lie outside the workflow's folder or are
    /// absolute, and the `forEach` files and globs that do.
    func pathsOutsideFolder() -> [String] {
        var found: [String] = []
        func check(_ text: String) {
            var path = text
            if path.hasPrefix("file://") { path = String(path.dropFirst("file://".count)) }
            if path.contains("://") || path.isEmpty { return }
            let outside = path.hasPrefix("/") || path == ".." || path.hasPrefix("../") || path.contains("/../")
            if outside && !found.contains(text) { found.append(text) }
        }
        for task in plan.workflow.tasks {
            for path in task.forEach?.paths ?? [] { check(path.value) }
        }
        var seenTasks = Set<Int>()
        for node in plan.nodes where seenTasks.insert(node.taskIndex).inserted {
            let parameters = plan.parameters(of: node)
            for name in parameters.names.sorted() where name == "url" || name == "path" || name == "workingDirectory" {
                if let text = parameters[name]?.stringValue { check(text) }
            }
        }
        return found
    }
}
