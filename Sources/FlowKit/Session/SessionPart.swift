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
        /// The lists step: the producers of the lists made at run time and what they need, once before the shards,
        /// which replay what they printed from the store (`--lists`).
        case lists
    }

    /// The part's nodes.
    package let plan: Plan
    /// The part's own journal in the store (`shard-2-of-4`, `gather`), `nil` for a whole run.
    let journal: String?
    /// In a shard: the nodes, by index in ``plan``, whose outputs the gather phase reads; the store keeps them.
    var keepValues: Set<Int> = []
    /// In a gather phase that reads values the shards made: what the store decides with.
    var values: GatherValues?
    /// Other journals of the workflow whose records the store decides with beside the part's own: a shard's
    /// items may rest on the lists step's producers (`lists`).
    var sharedJournals: [String] = []
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
        case .lists:
            let nodes = ShardPlan(plan: plan).listNodes
            if nodes.isEmpty { note("--lists: the workflow makes no list at run time; nothing to run") }
            self.init(plan: plan.restricted(to: nodes), journal: Self.listsJournal, finish: { $0 })
        }
    }

    /// The journal of the lists step, shared by the shards and the gather phase of a split run.
    static let listsJournal = "lists"

    /// `part`, its report first made final by `first` (a run whose lists are made at run time adds the outcomes of
    /// its first phase).
    init(_ part: SessionPart, after first: @escaping @Sendable (RunReport) -> RunReport) {
        self.init(plan: part.plan, journal: part.journal, keepValues: part.keepValues, values: part.values) {
            report throws(SessionError) in try part.finish(first(report))
        }
        sharedJournals = part.sharedJournals
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

    /// A shard's part: its items and what they need, and with lists made at run time, the lists step, which every
    /// shard runs or replays from the store, so that each shard's report says whether its lists were made.
    private init(_ shard: Shard, of plan: Plan, reports: ShardReports, note: (String) -> Void) {
        let split = ShardPlan(plan: plan)
        let listNodes = split.listNodes
        let nodes = listNodes.isEmpty ? split.nodes(in: shard) : Set(split.nodes(in: shard) + listNodes).sorted()
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
        if !listNodes.isEmpty { sharedJournals = [Self.listsJournal] }
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
