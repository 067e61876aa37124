/// How a session uses the store: it checks the request against the plan, opens (or only reads) the store,
/// warns about damage, and decides what is up to date (``UpToDate``) — for a whole run, a shard, or a gather
/// phase that reads values the shards made.
struct SessionStore {
    let options: SessionOptions

    /// The store and the decisions for a whole run or a shard, read without locking (dry runs, `explain`); `nil`
    /// without a store. The servers of http(s) sources are asked only with ``SessionOptions/checkSources``. A gather phase that reads the shards' values decides with ``readGather(_:)``.
    /// - Parameter recordedOnly: Decide only when the store holds results: with nothing recorded, no key is
    ///   computed (a million-node plan validates as fast as without a store), and the decisions are `nil`.
    func read(_ part: SessionPart, recordedOnly: Bool) throws(SessionError) -> (RunStore, UpToDate?)? {
        guard options.usesStore else { return nil }
        try checkRerun(part.plan)
        let store = RunStore.read(directory: directory(of: part.plan), name: journalName(part.plan, part: part.journal))
        warnAboutDamage(store)
        let records = records(of: part, in: store)
        if recordedOnly && records.isEmpty { return (store, nil) }
        var settings = settings(store)
        settings.dryRun = options.checkSources ? .sourcesAsked : .sourcesNotAsked
        let revalidate =
            options.checkSources ? Self.once(revalidation(part.plan, records: records, settings: settings)) : nil
        var decisions = UpToDate(plan: part.plan, records: records, settings: settings, revalidate: revalidate)
        // What a run would restore: the files whose copies the store holds.
        if options.restoresWrittenFiles, let archive = options.archive(storeDirectory: store.directory),
            case let candidates = WrittenFileRestore.candidates(decisions), !candidates.isEmpty
        {
            let held = WrittenFileRestore.held(candidates, by: archive)
            if !held.isEmpty {
                settings.restoredFiles = held
                decisions = UpToDate(plan: part.plan, records: records, settings: settings, revalidate: revalidate)
            }
        }
        warnAboutBlobs(decisions)
        return (store, decisions)
    }

    /// What a dry run of a gather phase that reads the shards' values decides, and how many results that drew on.
    func readGather(_ values: GatherValues) throws(SessionError) -> (RunStore, UpToDate, recorded: Int) {
        let plan = values.split.plan
        try refuseWithoutStore()
        try checkRerun(plan)
        let store = RunStore.read(directory: directory(of: plan), name: journalName(plan, part: "gather"))
        let (decisions, recorded) = try decideGather(
            values, store: store, dryRun: options.checkSources ? .sourcesAsked : .sourcesNotAsked)
        return (store, decisions, recorded)
    }

    /// Opens the store for a run and decides, asking the servers of http(s) sources whether what the store
    /// recorded is still current (``SourceRevalidation``), and removes the temporaries of the plan's writes that
    /// a killed run left (``WriteTemporaries``): the lock says no live run is writing them. A store that cannot be
    /// used is a warning and a run without it.
    /// - Throws: ``SessionError`` when another run holds the store, and for a gather phase that reads the shards'
    ///   values, when the store cannot be used or the values are not in it.
    func open(_ part: SessionPart) throws(SessionError) -> (RunStore, UpToDate)? {
        if let values = part.values { return try openGather(values) }
        guard options.usesStore else { return nil }
        let plan = part.plan
        try checkRerun(plan)
        let store: RunStore
        do {
            store = try RunStore.open(
                directory: directory(of: plan), name: journalName(plan, part: part.journal),
                warn: { [options] in options.warn($0) }, archive: options.archive(storeDirectory: directory(of: plan)))
        } catch let error as StoreError where error.isBusy {
            // A run, unlike `cache clean`, can also go on beside the other one.
            throw SessionError(
                .storeBusy, "\(error), or give this run its own --state-dir (or --no-cache); nothing was run")
        } catch {
            options.warn("cannot use the store: \(error); running without it (nothing is reused or recorded)")
            return nil
        }
        warnAboutDamage(store)
        return (store, decide(part, in: store))
    }

    /// Decides what of a part is up to date in a store open for a run, puts back the missing files of up-to-date
    /// `write`s from the store's copies (``WrittenFileRestore``), adopts the results found by key and removes the
    /// temporaries of the part's writes that a killed run left.
    func decide(_ part: SessionPart, in store: RunStore) -> UpToDate {
        let plan = part.plan
        let records = records(of: part, in: store)
        var settings = settings(store, keepValues: part.keepValues)
        let revalidate = Self.once(revalidation(plan, records: records, settings: settings))
        var decisions = UpToDate(plan: plan, records: records, settings: settings, revalidate: revalidate)
        if options.restoresWrittenFiles, let archive = store.archive,
            case let candidates = WrittenFileRestore.candidates(decisions), !candidates.isEmpty
        {
            let (restored, misses) = WrittenFileRestore.restore(candidates, from: archive)
            warnAboutMisses(misses, origin: archive.origin)
            if !restored.isEmpty {
                settings.restoredFiles = Set(restored.keys)
                decisions = UpToDate(plan: plan, records: records, settings: settings, revalidate: revalidate)
                store.journalRestored(restored, decisions: decisions)
            }
        }
        warnAboutBlobs(decisions)
        store.adoptResultsFoundByKey(plan, decisions: decisions)
        store.expectRecords(of: plan, decisions: decisions)
        WriteTemporaries.removeStale(of: decisions.outputPaths)
        store.releaseIndexPages()
        return decisions
    }

    /// Opens the store for a gather phase that reads values the shards made: decides over the whole plan, with
    /// the shards' records, and restricts the decisions to the phase's nodes.
    private func openGather(_ values: GatherValues) throws(SessionError) -> (RunStore, UpToDate) {
        let plan = values.split.plan
        try refuseWithoutStore()
        try checkRerun(plan)
        let store: RunStore
        do {
            store = try RunStore.open(
                directory: directory(of: plan), name: journalName(plan, part: "gather"),
                warn: { [options] in options.warn($0) })
        } catch {
            throw SessionError(
                .storeUnavailable, "\(error): the values the shards made are in the store; nothing was run")
        }
        return (store, try decideGather(values, store: store).decisions)
    }

    /// The records a part decides with: its own journal's, and those of the journals it shares
    /// (``SessionPart/sharedJournals``) where its own has none.
    func records(of part: SessionPart, in store: RunStore) -> LatestRecords {
        var records = store.latest
        for name in part.sharedJournals {
            let shared = RunStore.read(directory: store.directory, name: journalName(part.plan, part: name))
            warnAboutDamage(shared)
            records.merge(shared.latest) { own, _ in own }
        }
        return records
    }

    /// Checks that ``SessionOptions/rerun`` names tasks of the plan.
    func checkRerun(_ plan: Plan) throws(SessionError) {
        guard !options.rerun.isEmpty else { return }
        let ids = plan.workflow.tasks.map(\.id.value)
        for name in options.rerun.sorted() where !ids.contains(name) {
            let suggestion = Suggestion.closest(to: name, in: ids).map { " (did you mean '\($0)'?)" } ?? ""
            throw SessionError(.unknownTask, "--rerun names no task of \(plan.workflow.path): '\(name)'\(suggestion)")
        }
    }

    private func refuseWithoutStore() throws(SessionError) {
        guard !options.usesStore else { return }
        throw SessionError(
            .storeRequired,
            "the gather phase reads values the shards left in the store; it cannot run with --no-cache; "
                + "nothing was run")
    }

    /// The gather phase's decisions, by index in its plan, and how many results they drew on.
    /// - Throws: ``SessionError/Code/valuesMissing``, naming the shards to run again.
    /// - Parameter dryRun: How a dry run decides about sources that cannot be checked ahead; `nil` for a run.
    private func decideGather(_ values: GatherValues, store: RunStore, dryRun: UpToDate.DryRun? = nil)
        throws(SessionError) -> (decisions: UpToDate, recorded: Int)
    {
        let plan = values.split.plan
        warnAboutDamage(store)
        var records = LatestRecords()
        for part in values.shardJournals {
            let shard = RunStore.read(directory: store.directory, name: journalName(plan, part: part))
            warnAboutDamage(shard)
            records.merge(shard.latest) { first, _ in first }
        }
        records.merge(store.latest) { _, own in own }
        // `--force` and `--rerun` apply to the gather phase's own tasks: the shards' nodes are read back.
        let gathered = Set(values.split.gatherNodes.map { plan.task(of: plan.nodes[$0]).id.value })
        var settings = settings(store)
        settings.force = false
        settings.rerun = options.force ? gathered : options.rerun.intersection(gathered)
        settings.readValues = Set(values.valueNodes)
        settings.dryRun = dryRun
        let decisions = UpToDate(
            plan: plan, records: records, settings: settings,
            revalidate: dryRun == .sourcesAsked ? revalidation(plan, records: records, settings: settings) : nil)
        let missing = values.valueNodes.compactMap { node in decisions.causes[node].map { (node, $0.description) } }
        guard missing.isEmpty else {
            let shards = values.shardsToRerun(missing).map { "--shard \($0)" }.joined(separator: ", ")
            throw SessionError(
                .valuesMissing,
                "\(missing.count) value\(missing.count == 1 ? "" : "s") the gather reads "
                    + "\(missing.count == 1 ? "is" : "are") not in the store: \(values.describeMissing(missing)); "
                    + "run \(shards) again with the same --state-dir, then --gather; nothing was run")
        }
        return (decisions.restricted(to: values.nodes), records.count)
    }

    /// Asks the servers of the source nodes the decisions name (``SourceRevalidation``).
    private func revalidation(_ plan: Plan, records: LatestRecords, settings: UpToDate.Settings)
        -> ([Int]) -> [Int: SourceIdentity]
    {
        { nodes in SourceRevalidation.check(plan, nodes: nodes, records: records, settings: settings) }
    }

    private func directory(of plan: Plan) -> String {
        RunStore.directory(for: plan.workflow, stateDirectory: options.stateDirectory)
    }

    /// The journal's name: one per workflow file, and one per part of a split run (`NAME.yaml.shard-2-of-4`,
    /// `NAME.yaml.gather`), so shards running at once on a shared state folder neither wait for each other's lock
    /// nor mix their records, and a shard run again resumes from its own.
    private func journalName(_ plan: Plan, part: String?) -> String {
        RunStore.name(ofWorkflowAt: plan.workflow.path) + (part.map { ".\($0)" } ?? "")
    }

    private func settings(_ store: RunStore, keepValues: Set<Int> = []) -> UpToDate.Settings {
        var settings = UpToDate.Settings(
            force: options.force, rerun: options.rerun, optimize: options.run.optimize, blobs: store.blobs,
            keepValues: keepValues)
        settings.recordWithKey = store.record(withKey:)
        settings.recordedUntil = store.recordedUntil
        settings.failedLastRun = FailedNodes.read(directory: store.directory, name: store.name)
        return settings
    }

    /// What asks the servers of the source nodes given which versions they have (``SourceRevalidation``).
    private typealias Revalidation = ([Int]) -> [Int: SourceIdentity]

    /// Asks `revalidate` once: the decisions made again after restoring files ask the servers nothing new.
    private static func once(_ revalidate: @escaping Revalidation) -> Revalidation {
        var answered: (nodes: [Int], identities: [Int: SourceIdentity])?
        return { nodes in
            if let answered, answered.nodes == nodes { return answered.identities }
            let identities = revalidate(nodes)
            answered = (nodes, identities)
            return identities
        }
    }

    /// One warning for the written files that could not be restored (their nodes run), naming the first few.
    private func warnAboutMisses(_ misses: [String], origin: String) {
        warnOfRunningAgain(misses, "written file", "cannot be restored from \(origin)")
    }

    /// One warning for the stored outputs that cannot be used (their nodes run), naming the first few.
    private func warnAboutBlobs(_ decisions: UpToDate) {
        warnOfRunningAgain(decisions.unusableBlobs, "stored output", "cannot be used")
    }

    /// `N THINGs PROBLEM, so their nodes run again: FIRST; SECOND; THIRD; and K more`, when there are any.
    private func warnOfRunningAgain(_ lines: [String], _ thing: String, _ problem: String) {
        guard !lines.isEmpty else { return }
        let shown = lines.prefix(3).joined(separator: "; ")
        let more = lines.count > 3 ? "; and \(lines.count - 3) more" : ""
        options.warn(
            "\(lines.count) \(thing)\(lines.count == 1 ? "" : "s") \(problem), so "
                + "\(lines.count == 1 ? "its node runs" : "their nodes run") again: \(shown)\(more)")
    }

    private func warnAboutDamage(_ store: RunStore) {
        if let damage = store.damage { options.warn("store \(store.directory): \(damage)") }
    }
}
