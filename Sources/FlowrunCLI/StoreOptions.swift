import ArgumentParser
import FlowKit
import Foundation

/// The options that choose the store and what a run may reuse from it.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Keep the store of results here (default: .flowrun beside the workflow).", valueName: "DIR"))
    var stateDir: String?

    @Flag(help: "Neither read nor write the store: run every node, record nothing.")
    var noCache = false

    @Flag(help: "Run every node even when the store has its result (the results are recorded).")
    var force = false

    @Option(
        help: ArgumentHelp(
            "Run this task and everything downstream of it even when up to date (repeatable, or comma-separated).",
            valueName: "TASK"))
    var rerun: [String] = []

    func validate() throws {
        if noCache && (force || !rerun.isEmpty) {
            throw ValidationError("--no-cache runs everything already; it excludes --force and --rerun")
        }
    }

    var rerunTasks: Set<String> {
        Set(rerun.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
    }

    /// Checks that `--rerun` names tasks of the plan; exit 2 otherwise.
    func checkRerun(_ plan: Plan, terminal: Terminal) throws {
        guard !rerun.isEmpty else { return }
        let ids = plan.workflow.tasks.map(\.id.value)
        for name in rerunTasks.sorted() where !ids.contains(name) {
            let suggestion = Suggestion.closest(to: name, in: ids).map { " (did you mean '\($0)'?)" } ?? ""
            terminal.error("error: --rerun names no task of \(plan.workflow.path): '\(name)'\(suggestion)\n")
            throw ExitCode(2)
        }
    }

    /// The decisions for a plan against the store, read without locking (dry runs, `explain`).
    func decide(_ plan: Plan, optimize: Bool, terminal: Terminal, part: String? = nil) throws -> (RunStore, UpToDate)? {
        guard !noCache else { return nil }
        try checkRerun(plan, terminal: terminal)
        let store = RunStore.read(
            directory: RunStore.directory(for: plan.workflow, stateDirectory: stateDir),
            name: journalName(plan, part: part))
        warnAboutDamage(store, terminal: terminal)
        let decisions = UpToDate(plan: plan, records: store.latest, settings: settings(optimize: optimize, store))
        warnAboutBlobs(decisions, terminal: terminal)
        return (store, decisions)
    }

    /// What a dry run prints about the store: per task, what will run and why. With nothing recorded, one line,
    /// and no key is computed (a million-node plan validates as fast as without a store).
    func describe(_ plan: Plan, optimize: Bool, terminal: Terminal, part: String? = nil) throws -> String? {
        guard !noCache else { return nil }
        try checkRerun(plan, terminal: terminal)
        let store = RunStore.read(
            directory: RunStore.directory(for: plan.workflow, stateDirectory: stateDir),
            name: journalName(plan, part: part))
        warnAboutDamage(store, terminal: terminal)
        if store.latest.isEmpty { return UpToDatePrinter.nothingRecorded(store) }
        let decisions = UpToDate(plan: plan, records: store.latest, settings: settings(optimize: optimize, store))
        warnAboutBlobs(decisions, terminal: terminal)
        return UpToDatePrinter(plan: plan, store: store, decisions: decisions).render()
    }

    /// Opens the store for a run and decides, asking the servers of http(s) sources whether what the store
    /// recorded is still current (``SourceRevalidation``), and removes the temporaries of the plan's writes that
    /// a killed run left (``WriteTemporaries``): the lock says no live run is writing them. A store that cannot be
    /// used is a warning and a run without it; one held by another flowrun is an error (exit 2, nothing run).
    func open(
        _ plan: Plan, optimize: Bool, terminal: Terminal, part: String? = nil, keepValues: Set<Int> = []
    ) throws -> (RunStore, UpToDate)? {
        guard !noCache else { return nil }
        try checkRerun(plan, terminal: terminal)
        let directory = RunStore.directory(for: plan.workflow, stateDirectory: stateDir)
        let store: RunStore
        do {
            store = try RunStore.open(directory: directory, name: journalName(plan, part: part)) {
                message in terminal.error("warning: \(message)\n")
            }
        } catch let error as StoreError where error.isBusy {
            terminal.error("error: \(error); nothing was run\n")
            throw ExitCode(2)
        } catch {
            terminal.error(
                "warning: cannot use the store: \(error); running without it (nothing is reused or recorded)\n")
            return nil
        }
        warnAboutDamage(store, terminal: terminal)
        let settings = settings(optimize: optimize, store, keepValues: keepValues)
        let revalidated = SourceRevalidation.check(plan, records: store.latest, settings: settings)
        let decisions = UpToDate(plan: plan, records: store.latest, settings: settings, revalidated: revalidated)
        warnAboutBlobs(decisions, terminal: terminal)
        store.adoptResultsFoundByKey(plan, decisions: decisions)
        WriteTemporaries.removeStale(of: decisions.outputPaths)
        return (store, decisions)
    }

    /// Opens the store for a gather phase that reads values the shards made: decides over the whole plan, with
    /// the shards' records, and restricts the decisions to the phase's nodes.
    /// - Throws: `ExitCode(2)` with `--no-cache` or when the store cannot be used (the values are in it);
    ///   `ExitCode(1)`, naming the shards and items, when a value cannot be read back. Nothing is run then.
    func openGather(_ values: GatherValues, optimize: Bool, terminal: Terminal) throws -> (RunStore, UpToDate) {
        let plan = values.split.plan
        try refuseNoCache(terminal: terminal)
        try checkRerun(plan, terminal: terminal)
        let store: RunStore
        do {
            store = try RunStore.open(
                directory: RunStore.directory(for: plan.workflow, stateDirectory: stateDir),
                name: journalName(plan, part: "gather")
            ) { message in terminal.error("warning: \(message)\n") }
        } catch {
            terminal.error("error: \(error): the values the shards made are in the store; nothing was run\n")
            throw ExitCode(2)
        }
        return (store, try decideGather(values, store: store, optimize: optimize, terminal: terminal).decisions)
    }

    /// What a dry run of such a gather phase prints: what runs, and what is read back from the shards.
    func describeGather(_ values: GatherValues, optimize: Bool, terminal: Terminal) throws -> String {
        let plan = values.split.plan
        try refuseNoCache(terminal: terminal)
        try checkRerun(plan, terminal: terminal)
        let store = RunStore.read(
            directory: RunStore.directory(for: plan.workflow, stateDirectory: stateDir),
            name: journalName(plan, part: "gather"))
        let (decisions, recorded) = try decideGather(values, store: store, optimize: optimize, terminal: terminal)
        return UpToDatePrinter(
            plan: plan.restricted(to: values.nodes), store: store, decisions: decisions, recorded: recorded
        ).render()
    }

    private func refuseNoCache(terminal: Terminal) throws {
        guard noCache else { return }
        terminal.error(
            "error: the gather phase reads values the shards left in the store; it cannot run with --no-cache; "
                + "nothing was run\n")
        throw ExitCode(2)
    }

    /// The gather phase's decisions, by index in its plan, and how many results they drew on; exit 1 naming the
    /// shards whose values are missing.
    private func decideGather(_ values: GatherValues, store: RunStore, optimize: Bool, terminal: Terminal) throws
        -> (decisions: UpToDate, recorded: Int)
    {
        let plan = values.split.plan
        warnAboutDamage(store, terminal: terminal)
        var records: [String: JournalRecord] = [:]
        for part in values.shardJournals {
            let shard = RunStore.read(directory: store.directory, name: journalName(plan, part: part))
            warnAboutDamage(shard, terminal: terminal)
            records.merge(shard.latest) { first, _ in first }
        }
        records.merge(store.latest) { _, own in own }
        // `--force` and `--rerun` apply to the gather phase's own tasks: the shards' nodes are read back.
        let gathered = Set(values.split.gatherNodes.map { plan.task(of: plan.nodes[$0]).id.value })
        var settings = settings(optimize: optimize, store)
        settings.force = false
        settings.rerun = force ? gathered : rerunTasks.intersection(gathered)
        settings.readValues = Set(values.valueNodes)
        let decisions = UpToDate(plan: plan, records: records, settings: settings)
        let missing = values.valueNodes.compactMap { node in decisions.causes[node].map { (node, $0.description) } }
        guard missing.isEmpty else {
            let shards = values.shardsToRerun(missing).map { "--shard \($0)" }.joined(separator: ", ")
            terminal.error(
                "error: \(missing.count) value\(missing.count == 1 ? "" : "s") the gather reads "
                    + "\(missing.count == 1 ? "is" : "are") not in the store: \(values.describeMissing(missing)); "
                    + "run \(shards) again with the same --state-dir, then --gather; nothing was run\n")
            throw ExitCode(1)
        }
        return (decisions.restricted(to: values.nodes), records.count)
    }

    /// The journal's name: one per workflow file, and one per part of a split run (`NAME.yaml.shard-2-of-4`,
    /// `NAME.yaml.gather`), so shards running at once on a shared state folder neither wait for each other's lock
    /// nor mix their records, and a shard run again resumes from its own.
    private func journalName(_ plan: Plan, part: String?) -> String {
        RunStore.name(ofWorkflowAt: plan.workflow.path) + (part.map { ".\($0)" } ?? "")
    }

    private func settings(optimize: Bool, _ store: RunStore, keepValues: Set<Int> = []) -> UpToDate.Settings {
        var settings = UpToDate.Settings(
            force: force, rerun: rerunTasks, optimize: optimize, blobs: store.blobs, keepValues: keepValues)
        settings.recordWithKey = store.record(withKey:)
        return settings
    }

    /// One warning for the stored outputs that cannot be used (their nodes run), naming the first few.
    private func warnAboutBlobs(_ decisions: UpToDate, terminal: Terminal) {
        let unusable = decisions.unusableBlobs
        guard !unusable.isEmpty else { return }
        let shown = unusable.prefix(3).joined(separator: "; ")
        let more = unusable.count > 3 ? "; and \(unusable.count - 3) more" : ""
        terminal.error(
            "warning: \(unusable.count) stored output\(unusable.count == 1 ? "" : "s") cannot be used, so "
                + "\(unusable.count == 1 ? "its node runs" : "their nodes run") again: \(shown)\(more)\n")
    }

    private func warnAboutDamage(_ store: RunStore, terminal: Terminal) {
        if let damage = store.damage { terminal.error("warning: store \(store.directory): \(damage)\n") }
    }
}
