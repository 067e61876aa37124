import FlowKit
import OrderedCollections

/// What a dry run adds when a store is in use: per task, how many nodes will run and how many are cached, and for
/// each node that will run (a few per task), the first cause.
struct UpToDatePrinter {
    let plan: Plan
    /// The store's folder.
    let directory: String
    /// The decisions; `nil` when nothing is recorded.
    let decisions: UpToDate?
    /// How many results the decisions drew on: the store's, or with the shards' too for a gather phase.
    let recorded: Int

    /// The printer of a dry run's preview; `nil` without a store.
    init?(_ preview: RunPreview) {
        guard let directory = preview.storeDirectory else { return nil }
        plan = preview.plan
        self.directory = directory
        decisions = preview.decisions
        recorded = preview.recordedResults
    }

    /// Nodes listed with their cause, per task and kind of cause: a few by default, more with `--verbose` (or
    /// `--plan nodes`); `flowrun explain` tells about any other.
    static let examplesPerCause = (brief: 3, verbose: 10)

    /// Per task, how many nodes run and how many are cached, then for each kind of cause (a new node, an output
    /// missing, an upstream change) up to `examples` nodes with their cause.
    func render(examples: Int = Self.examplesPerCause.brief) -> String {
        guard let decisions, recorded > 0 else {
            return "store \(directory): nothing recorded yet; every node will run\n"
        }
        var byTask = OrderedDictionary<
            Int,
            (
                run: OrderedDictionary<String, [Int]>, count: Int, cached: Int, restored: Int, awaiting: Int,
                awaitingOutput: [Int], skipped: [Int], skippedWith: Int
            )
        >()
        var skippedCount = 0
        for index in plan.nodes.indices {
            let task = plan.nodes[index].taskIndex
            var entry = byTask[task] ?? ([:], 0, 0, 0, 0, [], [], 0)
            if let cause = decisions.causes[index] {
                entry.run[Self.kind(of: cause), default: []].append(index)
                entry.count += 1
            } else if decisions.skippedNodes[index] != nil {
                entry.skipped.append(index)
                skippedCount += 1
            } else if decisions.skipped(with: index) != nil {
                entry.skippedWith += 1
                skippedCount += 1
            } else if decisions.restoredFiles.contains(index) {
                entry.restored += 1
            } else {
                entry.cached += 1
            }
            if decisions.awaitingConfirmation[index] != nil { entry.awaiting += 1 }
            if let producer = decisions.awaitingOutput[index] { entry.awaitingOutput.append(producer) }
            byTask[task] = entry
        }
        let toRun = decisions.causes.lazy.filter { $0 != nil }.count
        var out =
            "store \(directory): \(recorded) result\(recorded == 1 ? "" : "s") recorded; "
            + "\(toRun) node\(toRun == 1 ? "" : "s") will run, "
            + "\(plan.nodes.count - toRun - decisions.restoredFiles.count - skippedCount) cached"
            + Self.restored(decisions.restoredFiles.count) + Self.skipped(skippedCount)
            + Self.awaiting(decisions.awaitingConfirmation.count, inSummary: true) + "\n"
        let width = byTask.keys.map { plan.workflow.tasks[$0].id.value.count }.max() ?? 0
        for (task, entry) in byTask {
            out +=
                "  \(plan.workflow.tasks[task].id.value.padded(to: width))  \(entry.count) run, \(entry.cached) cached"
                + Self.restored(entry.restored) + Self.skipped(entry.skipped.count + entry.skippedWith)
                + Self.awaiting(entry.awaiting, inSummary: false)
                + Self.awaitingOutput(entry.awaitingOutput, plan: plan) + "\n"
            for nodes in entry.run.values {
                for index in nodes.prefix(examples) {
                    let cause = decisions.causes[index]?.description(forItem: plan.nodes[index].itemIndex != nil) ?? ""
                    out += "    \(NodeName.forTerminal(plan.nodes[index].id)): \(cause)\n"
                }
                if nodes.count > examples {
                    out += "    … and \(nodes.count - examples) more like these (flowrun explain WORKFLOW NODE)\n"
                }
            }
            for index in entry.skipped.prefix(examples) {
                out +=
                    "    \(NodeName.forTerminal(plan.nodes[index].id)): skips again: "
                    + "\(decisions.skippedNodes[index] ?? "")\n"
            }
            if entry.skipped.count > examples {
                out += "    … and \(entry.skipped.count - examples) more skipped (flowrun explain WORKFLOW NODE)\n"
            }
        }
        return out
    }

    /// How many nodes are skipped again, for a skip the store recorded with their key; empty when none.
    private static func skipped(_ count: Int) -> String {
        count > 0 ? ", \(count) skipped" : ""
    }

    /// The kind of a cause, whatever its details (which node, which file): the causes of a task's nodes are
    /// grouped by it. The case's name, read by reflection so that a case added to ``RunCause`` is its own kind.
    private static func kind(of cause: RunCause) -> String {
        Mirror(reflecting: cause).children.first?.label ?? cause.description
    }

    /// How many `write`s get their missing files back from the store's copies; empty when none.
    private static func restored(_ count: Int) -> String {
        count > 0 ? ", \(count) restored" : ""
    }

    /// How many of the cached nodes are up to date only if a server confirms the version of an http(s) source
    /// the store recorded (a dry run asks none without `--check-sources`); empty when none.
    private static func awaiting(_ count: Int, inSummary: Bool) -> String {
        guard count > 0 else { return "" }
        let which = inSummary ? "\(count) of them" : "\(count)"
        return " (\(which) if the server confirms its source unchanged"
            + (inSummary ? "; --check-sources asks now)" : ")")
    }

    /// How many of a task's cached nodes run if what a node upstream that runs every time makes changes (they
    /// are decided when their turn comes); empty when none.
    private static func awaitingOutput(_ producers: [Int], plan: Plan) -> String {
        guard let first = producers.first else { return "" }
        let which =
            Set(producers).count == 1
            ? "\(NodeName.forTerminal(plan.nodes[first].id))'s output changes" : "an output made every time changes"
        return " (\(producers.count) run\(producers.count == 1 ? "s" : "") if \(which))"
    }

    /// The whole chain of causes for one node: its own, then that of the node it points at, and so on.
    static func explain(_ index: Int, plan: Plan, decisions: UpToDate) -> String {
        var ids: [String: Int] = [:]
        for (position, node) in plan.nodes.enumerated() { ids[node.id] = position }
        var out = ""
        var current: Int? = index
        var seen = Set<Int>()
        var depth = 0
        while let node = current, seen.insert(node).inserted {
            let indent = String(repeating: "  ", count: depth)
            let id = NodeName.forTerminal(plan.nodes[node].id)
            out += "\(indent)\(id) (\(decisions.keys[node].map { "key \($0.hex.prefix(12))" } ?? "no key")): "
            if let root = decisions.skipped(with: node) {
                out += "skipped: upstream \(NodeName.forTerminal(plan.nodes[root].id)) skips again\n"
                current = root
                depth += 1
                continue
            }
            guard let cause = decisions.causes[node] else {
                out += cachedReason(node, plan: plan, decisions: decisions) + "\n"
                break
            }
            out += "runs: \(cause.description(forItem: plan.nodes[node].itemIndex != nil))\n"
            current = cause.explainedBy.flatMap { ids[$0] }
            depth += 1
        }
        return out
    }

    private static func cachedReason(
        _ index: Int, plan: Plan, decisions: UpToDate, ignoringOutput: Bool = false
    ) -> String {
        if !ignoringOutput, let producer = decisions.awaitingOutput[index] {
            let id = NodeName.forTerminal(plan.nodes[producer].id)
            return "runs if \(id)'s output changes (\(id) runs every time; the run compares what it makes with what "
                + "it made), else "
                + cachedReason(index, plan: plan, decisions: decisions, ignoringOutput: true)
        }
        let cached =
            decisions.awaitingConfirmation[index].map { source in
                "cached if the server confirms the source of \(plan.nodes[source].id) unchanged ("
                    + (decisions.inputs(of: source)?.source ?? "") + "; a dry run asks no server, --check-sources asks)"
            } ?? "cached"
        if decisions.keepsNothing[index] {
            return "\(cached): nothing is kept of a noop, and nothing it waits for runs"
        }
        if let cause = decisions.skippedNodes[index], let record = decisions.records[index] {
            return "skipped: it skipped itself for the same key in the run of \(record.run) (\(cause)); it skips "
                + "again without running what it reads, until its inputs change"
        }
        guard let record = decisions.records[index], record.key == decisions.keys[index] else {
            return "\(cached): every node that reads its output is cached"
        }
        if decisions.restoredFiles.contains(index), let output = record.output {
            return "restored: same key as the result of the run of \(record.run); \(output.path) is missing, and the "
                + "store's copy of it (SHA-256 \(output.sha256.prefix(12)), \(output.stamp.size) bytes) is put back "
                + "instead of running it (--no-restore runs it)"
        }
        var text = "\(cached): same key as the result of the run of \(record.run)"
        if let output = record.output { text += "; \(output.path) is as written" }
        if decisions.restoredNodes.contains(index), let blob = record.blob {
            text +=
                "; its stored output (blob \(blob.sha256.prefix(12)), \(blob.size) bytes) is read back for its readers"
        }
        return text
    }
}
