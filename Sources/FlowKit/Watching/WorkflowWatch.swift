import FlowBasics
import SystemPackage

/// Runs a workflow, then again each time something it reads changes: the workflow and the pipelines it imports,
/// extra files such as env files, its list files and the folders its globs read. Each run goes through a
/// ``RunSession``, so with a store only what changed runs: a photo dropped into a watched folder runs that
/// photo's chain alone.
///
/// The workflow is loaded again for every run. When an edit makes it invalid, that cycle reports the
/// diagnostics and the watch goes on, waiting for the next edit.
///
/// ```swift
/// import FlowKit
///
/// func watchGallery() throws {
///     let watch = WorkflowWatch(
///         path: "gallery.yaml", load: { WorkflowLoader(registry: .builtIn).plan(path: $0) },
///         session: { RunSession(plan: $0) })
///     try watch.run(limit: 3) { cycle in
///         print("run \(cycle.number) took \(cycle.duration)")
///     }
/// }
/// ```
public final class WorkflowWatch: Sendable {
    /// One load and run, and what woke it.
    public struct Cycle: Sendable {
        /// How a cycle ended.
        public enum Outcome: Sendable {
            /// The workflow ran; its report.
            case ran(RunReport)
            /// The workflow did not load or validate; nothing ran.
            case invalid(WorkflowLoader.LoadResult)
            /// The session ran nothing (another run held the store, say).
            case notRun(SessionError)
        }

        /// The cycle's number, from 1.
        public var number: Int
        /// What changed since the cycle before; `nil` for the first.
        public var changes: WatchChanges?
        /// How the cycle ended.
        public var outcome: Outcome
        /// How long the cycle took, from loading the workflow to the end of the run.
        public var duration: Duration
    }

    private let path: String
    private let load: @Sendable (String) -> WorkflowLoader.LoadResult
    private let session: @Sendable (Plan) -> RunSession
    private let extraFiles: [FilePath]
    private let settle: Duration
    private let current = LockedBox(Current())

    /// What `cancel()` must reach: the run or the wait under way.
    private struct Current {
        var cancelled = false
        /// The cancellation of the cycle's session, from the moment it prepares: a list made at run time runs
        /// its producers then, before any runner is handed back.
        var run: RunCancellation?
        var watcher: FileWatcher?
    }

    /// How long what a watch watches must stay quiet after a change before the next run, unless it is given
    /// another: long enough that a copy of many files is one run, short enough to feel immediate.
    public static let defaultSettle = Duration.milliseconds(200)

    /// Creates a watch.
    /// - Parameters:
    ///   - path: The workflow file, watched even while it does not load.
    ///   - load: Loads and validates the workflow at the path it is given; called for every cycle, so edits take
    ///     effect.
    ///   - session: Makes the session that runs a loaded plan.
    ///   - extraFiles: Files to watch beyond what the workflow names, such as env files `load` reads.
    ///   - settle: How long the folders must stay quiet after a change before the next run starts, so a burst
    ///     of new files is one run.
    public init(
        path: String,
        load: @escaping @Sendable (String) -> WorkflowLoader.LoadResult,
        session: @escaping @Sendable (Plan) -> RunSession,
        extraFiles: [String] = [],
        settle: Duration = defaultSettle
    ) {
        self.path = path
        self.load = load
        self.session = session
        self.extraFiles = extraFiles.map { FilePath($0) }
        self.settle = settle
    }

    /// Runs cycles until ``cancel()`` or `limit` cycles, calling `onCycle` after each.
    /// - Throws: ``WatchError`` when the files cannot be watched.
    public func run(limit: Int? = nil, onCycle: (Cycle) -> Void) throws(WatchError) {
        var changes: WatchChanges?
        var number = 0
        while !current.withLock(\.cancelled) {
            number += 1
            let started = ContinuousClock.now
            let loaded = load(path)
            let made = loaded.plan.map(session)
            // Watching starts before the run, so what changes while it runs wakes the next cycle; the store's
            // folder is never watched, so the run's own records do not wake one.
            let store = made.map {
                RunStore.directory(for: $0.plan.workflow, stateDirectory: $0.options.stateDirectory)
            }
            let watcher = try FileWatcher(
                WatchSet(loaded, extraFiles: [FilePath(path)] + extraFiles, storeDirectory: store))
            guard register(watcher: watcher) else { return }
            let outcome = run(loaded, made)
            if case .ran(let report) = outcome { watcher.ignore(report.nodes.compactMap { $0.artifact?.path }) }
            onCycle(Cycle(number: number, changes: changes, outcome: outcome, duration: ContinuousClock.now - started))
            if let limit, number >= limit { return }
            guard let next = try watcher.nextChanges(settle: settle) else { return }
            changes = next
        }
    }

    /// Ends the watch: cancels the run under way (which ends as a cancelled run does), or the wait for changes.
    /// Safe from any thread, a signal handler's queue among them.
    /// - Returns: Whether a run was under way, so a caller can say that it is being cancelled rather than that
    ///   the watch simply ends.
    @discardableResult
    public func cancel() -> Bool {
        let (run, watcher) = current.withLock { current in
            current.cancelled = true
            return (current.run, current.watcher)
        }
        watcher?.cancel()
        return run?.cancel() ?? false
    }

    /// Runs one cycle's plan through its session, with a cancellation of the watch's own (it replaces any the
    /// session's options carry).
    private func run(_ loaded: WorkflowLoader.LoadResult, _ made: RunSession?) -> Cycle.Outcome {
        guard let made else { return .invalid(loaded) }
        var options = made.options
        let cancellation = RunCancellation()
        options.cancellation = cancellation
        if !register(run: cancellation) { cancellation.cancel() }
        defer { current.withLock { $0.run = nil } }
        do {
            return .ran(try RunSession(plan: made.plan, options: options).run())
        } catch {
            return .notRun(error)
        }
    }

    /// Makes `watcher` the one `cancel()` reaches; `false` when the watch was cancelled already.
    private func register(watcher: FileWatcher) -> Bool {
        current.withLock { current in
            current.watcher = watcher
            return !current.cancelled
        }
    }

    /// Makes `run` the cancellation `cancel()` reaches; `false` when the watch was cancelled already.
    private func register(run: RunCancellation) -> Bool {
        current.withLock { current in
            current.run = run
            return !current.cancelled
        }
    }
}
