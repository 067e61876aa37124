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

    /// The journals of the shards, by part name, and the lists step's when lists are made at run time.
    var shardJournals: [String] {
        (1...count).map { "shard-\($0)-of-\(count)" } + (split.hasRunTimeLists ? [SessionPart.listsJournal] : [])
    }

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
