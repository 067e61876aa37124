/// Runs a plan the way `flowrun` does: it checks the request, opens the store of earlier results, decides what
/// is up to date, revalidates http(s) sources, removes what a killed run left, runs the rest, records it, and
/// keys the report. For a run split over machines, it runs one shard or the gather phase.
///
/// Problems come back as a ``SessionError`` (nothing run) or through ``SessionOptions/onDiagnostic`` (a
/// warning, and the session goes on); the session never exits or prints.
///
/// ```swift
/// import FlowKit
///
/// /// Runs a workflow, reusing what the store beside it holds from earlier runs.
/// func runAgain(_ path: String) throws -> RunReport? {
///     guard let plan = WorkflowLoader(registry: .builtIn).plan(path: path).plan else { return nil }
///     var options = SessionOptions()
///     options.onDiagnostic = { print("\($0.severity): \($0.message)") }
///     let report = try RunSession(plan: plan, options: options).run()
///     print("\(report.totals[.cached] ?? 0) nodes were up to date")
///     return report
/// }
/// ```
///
/// A session holds no open store between runs: each ``run()-8fv0n`` (or ``prepare()``) opens it, takes its lock and
/// reads the records of the runs before, and lets go when the run ends. Call it again to run again — after a
/// file changed, say — and only what changed runs.
public struct RunSession: Sendable {
    /// The plan, whole: a shard or the gather phase runs part of it.
    public let plan: Plan
    /// What the session asks of the store and the run.
    public let options: SessionOptions

    /// Creates a session. Nothing is read or run until ``preview()``, ``prepare()`` or ``run()-8fv0n``.
    public init(plan: Plan, options: SessionOptions = SessionOptions()) {
        self.plan = plan
        self.options = options
    }

    /// What a run would do, without running anything, locking the store or asking any server: a dry run.
    /// - Throws: ``SessionError`` when the options name a task the plan lacks, or a gather phase cannot run.
    ///
    /// A list made at run time (`forEach: { from: TASK }`) is previewed as the store last recorded it, if it did.
    public func preview() throws(SessionError) -> RunPreview {
        let (pulledSession, bucket) = try pulled()
        guard RunTimeLists.occur(in: plan) else { return try pulledSession.preview(of: pulledSession.part(), bucket) }
        let recorded = try pulledSession.planWithRecordedLists()
        let local = RunSession(plan: recorded, options: pulledSession.options)
        var preview = try local.preview(of: local.part(), bucket)
        for node in recorded.nodes where recorded.workflow.tasks[node.taskIndex].forEach?.producer != nil {
            preview.recordedListSizes[node.taskIndex, default: 0] += 1
        }
        return preview
    }

    /// The preview of `part`, decided with the store's records.
    private func preview(of part: SessionPart, _ bucket: BucketStore?) throws(SessionError) -> RunPreview {
        let store = SessionStore(options: options)
        if let values = part.values {
            let (opened, decisions, recorded) = try store.readGather(values)
            return RunPreview(
                plan: part.plan, storeDirectory: bucket?.url ?? opened.directory, recordedResults: recorded,
                decisions: decisions)
        }
        guard let (opened, decisions) = try store.read(part, recordedOnly: true) else {
            return RunPreview(plan: part.plan, storeDirectory: nil, recordedResults: 0, decisions: nil)
        }
        return RunPreview(
            plan: part.plan, storeDirectory: bucket?.url ?? opened.directory,
            recordedResults: part.sharedJournals.isEmpty
                ? opened.latest.count : store.records(of: part, in: opened).count, decisions: decisions)
    }

    /// Opens the store, decides and makes the runner, ready to ``PreparedRun/run()-4xj1q``. The store stays locked
    /// until that run ends.
    /// - Throws: ``SessionError`` when the options name a task the plan lacks, another run holds the store, or a
    ///   gather phase finds shards or their values missing. A store that cannot be used otherwise is a warning,
    ///   and the run goes on without it.
    ///
    /// A workflow with a list made at run time (`forEach: { from: TASK }`) runs its producers and what they need
    /// now, while preparing (the store records their outputs), and prepares the rest with the lists they printed,
    /// each item's nodes named `task[KEY]`. A shard runs them too, or replays what they printed from the store where
    /// the lists step (`--lists`) recorded it, and takes the items whose keys name it; the gather phase reads the
    /// lists from the store. ``SessionOptions/cancellation`` cancels them.
    public func prepare() throws(SessionError) -> PreparedRun {
        let prepared = try makePreparedRun()
        options.starting(prepared.runner)
        return prepared
    }

    private func makePreparedRun() throws(SessionError) -> PreparedRun {
        let (local, bucket) = try pulled(sendingPending: true)
        let published = bucket.map { (store: $0, workflowPath: plan.workflow.path) }
        if RunTimeLists.occur(in: plan) {
            return try RunTimeLists(plan: plan, options: local.options, bucket: published).prepare()
        }
        let part = try local.part()
        let opened = try SessionStore(options: local.options).open(part)
        return PreparedRun(part: part, opened: opened, options: options.run, bucket: published)
    }

    /// Prepares and runs, blocking the calling thread (see ``PreparedRun/run()-4xj1q``).
    /// - Returns: The report of the run.
    public func run() throws(SessionError) -> RunReport {
        try prepare().run()
    }

    /// Prepares and runs without holding a thread while the nodes run (see ``PreparedRun/run()-2srxl``).
    /// - Returns: The report of the run.
    public func run() async throws(SessionError) -> RunReport {
        try await prepare().run()
    }

    /// The decisions for the whole plan, read without locking the store (`flowrun explain`); `nil` without a
    /// store.
    package func decide() throws(SessionError) -> (storeDirectory: String, decisions: UpToDate)? {
        let (local, bucket) = try pulled()
        let whole = try SessionPart(.whole, of: plan, reports: local.reports, note: { _ in })
        guard let (store, decisions) = try SessionStore(options: local.options).read(whole, recordedOnly: false),
            let decisions
        else { return nil }
        return (bucket?.url ?? store.directory, decisions)
    }

    /// With a store in a bucket (``BucketStore``): the bucket, pulled into its local folder, and this session
    /// working on that folder; otherwise this session.
    /// - Parameter sendingPending: Upload first what earlier runs on this machine could not (a run does; a dry
    ///   run or `explain` writes nothing).
    private func pulled(sendingPending: Bool = false) throws(SessionError) -> (
        session: RunSession, bucket: BucketStore?
    ) {
        guard let url = options.stateDirectory, BucketStore.isBucket(url) else { return (self, nil) }
        var bucket = try BucketStore(url, warn: { [options] in options.warn($0) })
        bucket.readOnly = options.cacheReadOnly
        // Without the store (`--no-cache`) only a shard's report goes up; nothing need come down.
        var present = Set<String>()
        if options.usesStore || options.part == .gather {
            if sendingPending { bucket.sendPending() }
            present = try bucket.pull(
                workflowName: RunStore.name(ofWorkflowAt: plan.workflow.path),
                BucketStore.Pull(shardReports: options.part == .gather))
        }
        var local = options
        local.stateDirectory = bucket.localDirectory
        local.bucketArchive = BucketFileArchive(bucket, holding: present)
        return (RunSession(plan: plan, options: local), bucket)
    }

    /// The plan with its lists made at run time as the store last recorded them, so `explain` finds their items'
    /// nodes; the plan itself when it has none.
    package func planWithRecordedLists() throws(SessionError) -> Plan {
        guard RunTimeLists.occur(in: plan) else { return plan }
        return try RunTimeLists(plan: plan, options: pulled().session.options).recordedPlan()
    }

    private var reports: ShardReports {
        ShardReports(workflowPath: plan.workflow.path, stateDirectory: options.stateDirectory)
    }

    private func part() throws(SessionError) -> SessionPart {
        try SessionPart(options.part, of: plan, reports: reports, note: options.note)
    }
}
