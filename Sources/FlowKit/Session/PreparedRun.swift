import FlowBasics
import Foundation

/// A run a ``RunSession`` has prepared: the store is open and locked, what is up to date is decided, and the
/// ``runner`` is ready to start. Steer it through ``runner`` (cancel, suspend, prioritise) from any thread, and
/// call ``run()-4xj1q`` once: a runner runs its plan once (ask the ``RunSession`` for another prepared run).
public final class PreparedRun: Sendable {
    /// The runner of the session's nodes: control the run through it while ``run()-4xj1q`` runs.
    public let runner: Runner
    /// The nodes that run, or end `cached`.
    public let plan: Plan
    /// How many of them the store holds up to date: they end `cached` without running.
    public let upToDateCount: Int
    private let opened: (store: RunStore, decisions: UpToDate)?
    private let finishPart: @Sendable (RunReport) throws(SessionError) -> RunReport
    /// Where the previews of written files are kept and read back, when the run asks for previews.
    private let previews: PreviewStore?
    /// With a store in a bucket: where the run's records and a shard's report are uploaded at its end.
    private let bucket: (store: BucketStore, workflowPath: String)?
    /// The outputs of the nodes the caller asked to see (the producers of run-time lists), by node index, as they
    /// succeed.
    private let captured: LockedBox<[Int: any Sendable]>

    /// - Parameters:
    ///   - bucket: With a store in a bucket, where the run's records go at its end.
    ///   - capturing: Nodes whose outputs ``capturedOutputs`` keeps: what they made, or what the store replays.
    ///   - earlier: Outcomes of nodes an earlier phase of the run decided, by node index: they are restored with
    ///     them instead of running or being decided by the store.
    ///   - settled: Nodes an earlier phase of the run ran whose outcomes no node of this one reads, by node index:
    ///     they end at once, neither run nor restored (their records come from that phase's report).
    ///   - reportedEarlier: Nodes an earlier phase of the run ran and told the observer of, by node index: their
    ///     events are not sent again, and this run's progress does not count them.
    ///   - skipping: Nodes that end `skipped` without running, with the cause, by node index.
    ///   - closesStore: Whether the run closes the store at its end: not when other runs share it (their owner
    ///     closes it once they have all ended).
    init(
        part: SessionPart, opened: (RunStore, UpToDate)?, options: RunOptions,
        bucket: (store: BucketStore, workflowPath: String)? = nil, capturing: Set<Int> = [],
        earlier: [Int: Result<any Sendable, NodeFailure>] = [:], settled: Set<Int> = [], reportedEarlier: Set<Int> = [],
        skipping: [Int: String] = [:],
        closesStore: Bool = true
    ) {
        self.bucket = bucket
        self.closesStore = closesStore
        let plan = part.plan
        var options = options
        options.skippedNodes = skipping
        options.quietNodes = reportedEarlier
        let captured = LockedBox<[Int: any Sendable]>([:])
        self.captured = captured
        if let (store, decisions) = opened {
            let run = Date().formatted(.iso8601)
            options.cachedNodes = decisions.cachedNodes
            options.restoredNodes = decisions.nodesDecidedInTheRun
            options.filesRestored = decisions.restoredFiles
            options.restoredFrom = store.archive?.origin ?? store.directory
            options.restore = { index in store.restore(index, of: plan, decisions: decisions) }
            options.unneededNodes = decisions.skippedNodes
            options.nodeSkipped = { index, cause in
                store.journal(index, of: plan, decisions: decisions, run: run, skipped: cause)
            }
            options.nodeSkippedBelow = { index in
                store.journalWroteNothing(index, of: plan, decisions: decisions, run: run)
            }
            if !decisions.awaitingOutput.isEmpty {
                // Decided when their turn comes: run when what a node upstream that runs every time made changed.
                options.runsInstead = { index in
                    decisions.awaitingOutput[index] != nil
                        && (decisions.inputChanged(index, of: plan, revisedKey: store.revisedKey(of:))
                            || decisions.outputNeeded(index, of: plan))
                }
            }
            let previews = options.previews ? PreviewStore(storeDirectory: store.directory) : nil
            options.nodeSucceeded = { index, operation, isWhole in
                // A partial result is not recorded: the next run makes it again, with the inputs that failed.
                guard isWhole else { return }
                // The value only where it is kept: reading it out casts it to an existential.
                store.journal(
                    index, of: plan, decisions: decisions, run: run,
                    output: decisions.storesValue[index]
                        || (!decisions.keyedByOutput.isEmpty && decisions.keyedByOutput.contains(index))
                        ? operation.output(as: (any Sendable).self) : nil,
                    observedSource: (operation as? any SourceObserving)?.observedSource,
                    sourceFile: (operation as? any SourceFileObserving)?.readSourceFile,
                    written: decisions.outputPaths[index] == nil
                        ? nil : (operation as? any WrittenFileObserving)?.writtenFile)
                if let previews, let preview = operation.artifact?.preview,
                    let key = store.key(of: index, decisions: decisions)
                {
                    previews.keep(preview, for: key)
                }
            }
            self.previews = previews
        } else {
            previews = nil
        }
        if !capturing.isEmpty {
            let journal = options.nodeSucceeded
            options.nodeSucceeded = { index, operation, isWhole in
                journal?(index, operation, isWhole)
                if capturing.contains(index), let output = operation.output(as: (any Sendable).self) {
                    captured.withLock { $0[index] = output }
                }
            }
        }
        if !settled.isEmpty {
            options.restoredNodes.removeAll { settled.contains($0) }
            options.cachedNodes = (options.cachedNodes.filter { !settled.contains($0) } + settled).sorted()
        }
        if !earlier.isEmpty {
            options.cachedNodes.removeAll { earlier[$0] != nil }
            options.restoredNodes = (options.restoredNodes.filter { earlier[$0] == nil } + earlier.keys).sorted()
            let fromStore = options.restore
            options.restore = { index in
                earlier[index]
                    ?? fromStore?(index)
                    ?? .failure(NodeFailure(.internalError, "no output to restore", node: plan.nodes[index].id))
            }
        }
        self.capturing = capturing
        self.plan = plan
        self.opened = opened.map { (store: $0.0, decisions: $0.1) }
        finishPart = part.finish
        upToDateCount = opened.map { $0.1.causes.lazy.filter { $0 == nil }.count } ?? 0
        runner = Runner(plan: plan, options: options)
    }

    /// Runs the nodes, blocking the calling thread, then records the run in the store and lets go of its lock;
    /// a store in a bucket gets this run's records (an interrupted run's too) and a shard's report.
    ///
    /// From Swift concurrency, `await` the asynchronous form instead (as with ``Runner``).
    /// - Returns: The report, each node keyed by its store key; for a gather phase, merged with the shards'.
    /// - Throws: ``SessionError/Code/shardReportNotWritten`` when a shard's report cannot be left for its gather
    ///   phase: the nodes ran and are recorded, but the gather would count the shard as missing.
    public func run() throws(SessionError) -> RunReport {
        try finish(runner.run())
    }

    /// Runs the nodes without holding a thread, then records the run in the store and lets go of its lock.
    /// Cancelling the calling task cancels the run.
    /// - Returns: The report, each node keyed by its store key; for a gather phase, merged with the shards'.
    /// - Throws: ``SessionError/Code/shardReportNotWritten``, as the blocking form.
    public func run() async throws(SessionError) -> RunReport {
        try finish(await runner.run())
    }

    /// The outputs of the nodes asked for when preparing: of those that ran, and of those the store holds up to
    /// date (read back from it). A node that failed, or whose stored output cannot be read, has none.
    var capturedOutputs: [Int: any Sendable] { captured.withLock { $0 } }
    private let capturing: Set<Int>
    private let closesStore: Bool

    private func finish(_ report: RunReport) throws(SessionError) -> RunReport {
        var report = report
        if let (store, decisions) = opened {
            let replayed = capturing.filter { decisions.causes[$0] == nil && report.nodes[$0].status == .cached }
            for index in replayed {
                if case .success(let output) = store.restore(index, of: plan, decisions: decisions) {
                    captured.withLock { $0[index] = output }
                }
            }
            if let failures = FailedNodes.after(report, previous: decisions.failedLastRun, id: { plan.nodes[$0].id }) {
                FailedNodes.write(failures, directory: store.directory, name: store.name)
            }
            if closesStore { store.close { bucket?.store.publish(store) } }
            report = report.keyed(by: store.keys(decisions))
            if let previews { report = CachedArtifacts.add(to: report, decisions: decisions, previews: previews) }
        }
        let finished = try finishPart(report)
        if let bucket { try bucket.store.publishShardReport(finished, workflowPath: bucket.workflowPath) }
        return finished
    }
}
