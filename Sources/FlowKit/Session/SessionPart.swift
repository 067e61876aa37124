/// The nodes one session runs — the whole plan, a shard's or the gather phase's — and what it does with the
/// report once they ran.
package struct SessionPart {
    /// Which part of a run split over machines a session runs.
    package enum Request: Sendable, Equatable {
        /// The whole plan.
        case whole
        /// One shard: its block of forEach items and what depends only on them (`--shard K/N`).
        case shard(Shard)
        /// The gather tasks and what follows them, after every shard finished (`--gather`).
        case gather
    }

    /// The part's nodes.
    package let plan: Plan
    /// The part's own journal in the store (`shard-2-of-4`, `gather`), `nil` for a whole run.
    let journal: String?
    /// In a shard: the nodes, by index in ``plan``, whose outputs the gather phase reads; the store keeps them.
    var keepValues: Set<Int> = []
    /// In a gather phase that reads values the shards made: what the store decides with.
    var values: GatherValues?
    /// What becomes of the part's report: a shard's is written for the gather phase, the gather phase's is
    /// merged with the shards'.
    let finish: @Sendable (RunReport) throws(SessionError) -> RunReport

    /// The part of `plan` that `request` names.
    /// - Parameters:
    ///   - reports: Where the shards' reports are.
    ///   - note: Where a shard says what it runs.
    /// - Throws: ``SessionError`` when the gather phase finds shards missing or their reports unreadable.
    init(
        _ request: Request, of plan: Plan, reports: ShardReports, note: (String) -> Void
    ) throws(SessionError) {
        switch request {
        case .whole: self.init(plan: plan, journal: nil, finish: { $0 })
        case .shard(let shard): self.init(shard, of: plan, reports: reports, note: note)
        case .gather: try self.init(gatherOf: plan, reports: reports)
        }
    }

    /// A part of a whole run: the nodes of `plan`, whose `keepValues` the store keeps, its report made final by
    /// `finish` (a run whose lists are made at run time runs in two phases: ``RunTimeLists``).
    init(
        plan: Plan, journal: String?, keepValues: Set<Int> = [], values: GatherValues? = nil,
        finish: @escaping @Sendable (RunReport) throws(SessionError) -> RunReport
    ) {
        self.plan = plan
        self.journal = journal
        self.keepValues = keepValues
        self.values = values
        self.finish = finish
    }

    private init(_ shard: Shard, of plan: Plan, reports: ShardReports, note: (String) -> Void) {
        let split = ShardPlan(plan: plan)
        let nodes = split.nodes(in: shard)
        let items = ShardPlan.describe(split.items(in: shard))
        let what =
            nodes.isEmpty
            ? (split.hasItems
                ? "no items fall in it" : "the workflow has no forEach, so shard 1/\(shard.count) runs it all")
            : "\(nodes.count) node\(nodes.count == 1 ? "" : "s")" + (items.isEmpty ? "" : ", " + items)
        note("shard \(shard): \(nodes.isEmpty ? "nothing to run: " : "")\(what)")
        let crossing = Set(split.valueNodes)
        let keep = Set(nodes.indices.filter { crossing.contains(nodes[$0]) })
        self.init(
            plan: plan.restricted(to: nodes), journal: "shard-\(shard.index)-of-\(shard.count)", keepValues: keep
        ) { result throws(SessionError) in
            var result = result
            result.shard = shard
            try reports.write(result)
            return result
        }
    }

    private init(gatherOf plan: Plan, reports: ShardReports) throws(SessionError) {
        let split = ShardPlan(plan: plan)
        let shardReports = try reports.readAll()
        guard let count = shardReports.first?.value.shard?.count else {
            throw SessionError(
                .shardsMissing,
                "no shard reports in \(reports.directory): run the shards (--shard K/N) first; nothing was run")
        }
        switch GatherPhase.decide(split, count: count, reports: shardReports) {
        case .failure(let missing):
            throw SessionError(.shardsMissing, "\(missing); nothing was run")
        case .success(let phase):
            let finished = (1...count).compactMap { shardReports[$0] }
            let skipped = phase.skipped
            let values = GatherValues(split: split, phase: phase, count: count)
            self.init(plan: plan.restricted(to: values?.nodes ?? phase.nodesToRun), journal: "gather", values: values) {
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
