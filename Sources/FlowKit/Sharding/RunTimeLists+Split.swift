/// A run split over machines whose lists are made at run time: the producers run once, in the lists step, whose
/// journal every part shares; each shard runs them again or, up to date, replays what they printed, and takes the
/// items whose keys name it (``ShardPlan``); the gather phase reads the lists the shards split from the store.
extension RunTimeLists {
    /// The journal the first phase records the producers in: the whole run's own, or for a part of a split run the
    /// lists step's, which every shard and the gather phase read.
    var listsJournal: String? { options.part == .whole ? nil : SessionPart.listsJournal }

    /// The part of the second phase, of the plan with the lists known, that this session runs.
    func secondPart(of second: Plan) throws(SessionError) -> SessionPart {
        switch options.part {
        case .whole: SessionPart(plan: second, journal: nil) { $0 }
        case .lists: SessionPart(plan: second, journal: SessionPart.listsJournal) { $0 }
        case .shard, .gather:
            try SessionPart(
                options.part, of: second,
                reports: ShardReports(workflowPath: plan.workflow.path, stateDirectory: options.stateDirectory),
                note: options.note)
        }
    }

    /// The gather phase: the plan made again with the lists the lists step last recorded — those the shards
    /// split —, and decided from the shards' reports. It runs no producer: a list printed anew could differ from
    /// the one the shards ran.
    /// - Throws: ``SessionError`` when the store is not used or holds no list of a fan-out, and as
    ///   ``RunSession/prepare()`` does for a gather phase.
    func prepareGather() throws(SessionError) -> PreparedRun {
        guard options.usesStore else {
            throw SessionError(
                .storeRequired,
                "the gather phase reads the lists made at run time from the store the shards shared; it cannot run "
                    + "with --no-cache; nothing was run")
        }
        let lists = try recordedLists()
        let tasks = plan.workflow.tasks
        let missing = producerNodes().keys.filter { lists[$0] == nil }.sorted()
        guard missing.isEmpty else {
            let names = missing.map { "'\(tasks[$0].id.value)' (from '\(tasks[$0].forEach?.producer?.value ?? "")')" }
            throw SessionError(
                .shardsMissing,
                "the store has no list of \(names.joined(separator: ", ")): run the lists step (--lists) or the "
                    + "shards (--shard K/N) first, with the same --state-dir; nothing was run")
        }
        let emptyLists = Set(lists.lazy.filter { $0.value.isEmpty }.map(\.key))
        let part = try secondPart(of: try replanned(with: lists))
        return PreparedRun(
            part: part, opened: try SessionStore(options: options).open(part), options: options.run, bucket: bucket,
            skipping: Self.gathersOverNoItems(part.plan, emptyLists: emptyLists))
    }
}
