import Foundation
import OrderedCollections

/// The store's decision, before a run, of which nodes must run and which are up to date (`cached`).
///
/// Keys are computed in plan order (every node after its dependencies), decisions in reverse (every node after
/// its dependents):
/// - a node that writes a file is up to date when the store recorded a result with the same key and the file is
///   still what was written (same stamp, or else the same SHA-256);
/// - a node whose output no node of the run reads (a sink, or a node only `noop`s wait for) is up to date when
///   the store recorded a result with its key;
/// - a node whose output is read is up to date when none of its readers runs — its key is then guaranteed by
///   theirs, whether or not its own record survived (a record batch lost to `kill -9` costs nothing);
/// - `--force`, `--rerun TASK` (and everything downstream) and tasks that are never cached always run;
/// - a node whose reader runs is restored instead of run when the store kept its output as a blob (`cache: true`)
///   and that blob is intact and was made for the same consumers (see ``restoredNodes``);
/// - a node of a ``StatelessTask`` (`noop`) is up to date when the store holds results of this workflow and
///   nothing it waits for changed (see ``decideStateless(_:tasks:settings:rerunBy:keys:records:cold:causes:)``):
///   it is never journaled, and keyed only when a node the store keeps depends on it (its key is part of theirs),
///   so a graph of 20,000 `noop`s costs the store nothing.
package struct UpToDate: Sendable {
    /// What a run asks of the store.
    package struct Settings: Sendable {
        /// Run everything (`--force`).
        package var force: Bool
        /// Run these tasks and everything downstream of them (`--rerun`).
        package var rerun: Set<String>
        /// Whether operations may take equivalent-output shortcuts (part of every key).
        package var optimize: Bool
        /// Where stored outputs are kept; `nil` neither stores nor restores any.
        package var blobs: BlobStore?
        /// Nodes whose outputs are stored whether or not they say `cache: true`, by index in ``Plan/nodes``: in a
        /// shard, those a gather task reads.
        package var keepValues: Set<Int>
        /// Nodes whose recorded outputs are reused whatever their `cache:` setting or their task type's default,
        /// by index in ``Plan/nodes``: in the gather phase, the values the shards made (the shards ran them).
        package var readValues: Set<Int>
        /// How a dry run treats the sources that cannot be checked ahead; `nil` for a run.
        package var dryRun: DryRun?
        /// The store's latest result with a key, whichever node recorded it (``RunStore/record(withKey:)``):
        /// where a node's own record has another key, a result of the same work serves.
        package var recordWithKey: (@Sendable (NodeKey) -> JournalRecord?)?
        /// When the store last wrote its journal (``RunStore/recordedUntil``): a written file whose inode changed
        /// since is compared by content, whatever its stamp says.
        package var recordedUntil: Int64?
        /// The nodes whose last attempt failed, with the cause, by node id (``FailedNodes``): a node of them with
        /// no result recorded runs because it "failed last run".
        package var failedLastRun: [String: String] = [:]
        /// The `write`s whose missing files were put back from the store's copies before the run
        /// (``WrittenFileRestore``), by index in ``Plan/nodes``; for a dry run, those whose copies the store holds.
        /// They are up to date without their files being looked at.
        package var restoredFiles: Set<Int> = []

        /// Creates settings.
        package init(
            force: Bool = false, rerun: Set<String> = [], optimize: Bool = true, blobs: BlobStore? = nil,
            keepValues: Set<Int> = [], readValues: Set<Int> = [], dryRun: DryRun? = nil
        ) {
            self.readValues = readValues
            self.dryRun = dryRun
            self.force = force
            self.rerun = rerun
            self.optimize = optimize
            self.blobs = blobs
            self.keepValues = keepValues
        }
    }

    /// What went into each node's key, by index in ``Plan/nodes``, where the node's own record has another key
    /// or none (sparse: an unchanged rerun keeps none); ``inputs(of:)`` answers for every keyed node.
    package private(set) var inputs: KeyInputsByNode
    /// Each node's key; `nil` for a node of a ``StatelessTask`` that no node the store keeps depends on: it is
    /// never journaled, and its decision needs no key.
    package private(set) var keys: [NodeKey?]
    /// Whether each node is of a ``StatelessTask`` (without a run condition): nothing of it is kept, it is up to
    /// date while nothing it waits for changed.
    package private(set) var keepsNothing: [Bool]
    /// Why each node runs, or `nil` for a node that is up to date.
    package private(set) var causes: [RunCause?]
    /// The file each node writes, resolved against the workflow's folder.
    package private(set) var outputPaths: [String?]
    /// The nodes whose path is named by the content they write (`${output.hash}`), with that path as the plan
    /// holds it, resolved against the workflow's folder: a file written under any name it makes is the node's.
    package private(set) var hashedOutputs: [Int: String]
    /// The store's record of each node, by node index: its own latest, or a result of its key another node
    /// recorded.
    package private(set) var records: Records
    /// Whether each node that runs stores its output as a blob: it says `cache: true` (or is in
    /// ``Settings/keepValues``) and its output is a value the store can keep.
    package private(set) var storesValue: [Bool]
    /// The up-to-date nodes whose stored output a node that runs reads, ascending: what
    /// ``RunOptions/restoredNodes`` takes. Their blobs were found intact.
    package private(set) var restoredNodes: [Int]
    /// The up-to-date nodes whose decision rests on a source a dry run did not ask about (``DryRun/sourcesNotAsked``)
    /// and keyed by the version the store recorded, each with the index of that source's node: they are up to
    /// date if its server confirms that version, and run otherwise. Sparse: empty for a run.
    package private(set) var awaitingConfirmation: [Int: Int]
    /// The nodes that run every time (`cache: false`, a `command` without `cache: true`): each is known to its
    /// dependents by the digest of what it made (its record's key), not by what went into it, so what reads its
    /// output runs when that output changes and stays cached when it does not (early cutoff).
    package private(set) var keyedByOutput: Set<Int>
    /// The up-to-date nodes downstream of a node of ``keyedByOutput`` that runs, each with the index of the first
    /// such node: up to date while what that node makes is what it made before; a run decides when their turn
    /// comes (``inputChanged(_:revisedKey:)``) and runs them otherwise. Sparse: empty when no such node runs.
    package private(set) var awaitingOutput: [Int: Int]
    /// The up-to-date `write`s whose files were put back from the store's copies (``Settings/restoredFiles``):
    /// they end `restored`, not `cached`.
    package private(set) var restoredFiles: Set<Int>
    /// The nodes skipped without running, for a skip the store recorded with their key, and those below them
    /// (``SettledSkips``); their ``causes`` are `nil`, but they are neither cached nor restored.
    private(set) var skips: SettledSkips
    /// Whether the run allows equivalent-output shortcuts (``Settings/optimize``).
    package let optimize: Bool
    /// The nodes whose last attempt failed, with the cause (``Settings/failedLastRun``).
    package let failedLastRun: [String: String]
    /// The stamps of the blobs checked before the run, by name: a restore reads the same file without hashing
    /// it again.
    package let verifiedBlobs: [String: FileStamp]
    /// Stored outputs found unusable (missing, damaged, made for other consumers), one line each: their nodes run.
    package let unusableBlobs: [String]

    /// What went into a node's key; `nil` for a node without one, or whose record (which has its key) cannot be
    /// read again.
    package func inputs(of index: Int) -> NodeKeyInputs? {
        recordedInputs(of: index)?.decoded
    }

    /// What went into a node's key, as its record takes them: encoded, as this run keyed it, or where its own
    /// record (which has its key) holds them; `nil` for a node without a key.
    func recordedInputs(of index: Int) -> RecordedInputs? {
        if let encoded = inputs.encoded(index) { return .encoded(encoded) }
        guard let key = keys[index], let record = records[index], record.key == key else { return nil }
        return record.recordedInputs
    }

    /// The up-to-date nodes that are not restored, ascending: what ``RunOptions/cachedNodes`` takes. A node of
    /// ``awaitingOutput`` is not among them: it is decided when its turn comes (``nodesDecidedInTheRun``).
    package var cachedNodes: [Int] {
        var restored = restoredNodes[...]
        return causes.indices.filter { index in
            guard causes[index] == nil else { return false }
            if !skips.isEmpty, skips.contains(index) { return false }
            if !awaitingOutput.isEmpty, awaitingOutput[index] != nil { return false }
            if restored.first == index {
                restored.removeFirst()
                return false
            }
            return true
        }
    }

    /// The nodes that skipped themselves last run, for the key they have now, with the cause they gave, by node
    /// index: a run skips them again without running them or what they read (``RunOptions/unneededNodes``), and
    /// its runner skips what is below them.
    package var skippedNodes: [Int: String] { skips.roots }

    /// For a node skipped because one upstream skipped itself for the same key last run, that node's index
    /// (``skippedNodes``); `nil` for every other node.
    package func skipped(with index: Int) -> Int? {
        skips.isEmpty ? nil : skips.downstream[index]
    }

    /// The nodes restored when their turn comes, ascending: ``restoredNodes`` and the nodes of ``awaitingOutput``,
    /// which a run restores, or runs when an input changed (``inputChanged(_:revisedKey:)``); what
    /// ``RunOptions/restoredNodes`` takes.
    package var nodesDecidedInTheRun: [Int] {
        guard !awaitingOutput.isEmpty else { return restoredNodes }
        return Set(restoredNodes).union(awaitingOutput.keys).sorted()
    }

    /// Whether a node of ``awaitingOutput`` must run after all: the key of one of its dependencies as the run
    /// revised it (the digest of what a node that runs every time made) is not the one it was decided with.
    /// - Parameter revisedKey: A node's key as revised in the run; `nil` for one that stands.
    package func inputChanged(_ index: Int, of plan: Plan, revisedKey: (Int) -> NodeKey?) -> Bool {
        var changed = false
        plan.graph.forEachDependency(of: index) { dependency in
            if !changed, let revised = revisedKey(dependency), revised != keys[dependency] { changed = true }
        }
        return changed
    }

    /// Whether a node of ``awaitingOutput`` found unchanged in the run has no output to give its readers: it
    /// neither wrote a file nor is restored from a stored value checked before the run, and a node after it
    /// reads what it provides. It then runs: whether those readers run is decided only after it.
    package func outputNeeded(_ index: Int, of plan: Plan) -> Bool {
        if isRestored(index) { return false }
        if plan.taskTypes[plan.nodes[index].taskIndex].provides == .file, records[index]?.output != nil {
            return false
        }
        var read = false
        plan.graph.forEachDependent(of: index) { dependent in
            if plan.taskTypes[plan.nodes[dependent].taskIndex].readsInput { read = true }
        }
        return read
    }

    /// Whether a node is among ``restoredNodes`` (ascending).
    package func isRestored(_ index: Int) -> Bool {
        var low = 0
        var high = restoredNodes.count
        while low < high {
            let middle = (low + high) / 2
            if restoredNodes[middle] < index { low = middle + 1 } else { high = middle }
        }
        return low < restoredNodes.count && restoredNodes[low] == index
    }

    /// Decides for every node of a plan, in steps: the keys (``NodeKeys``), the kept nodes' decisions
    /// (``KeptDecisions``, each node's ``RunPolicy`` and ``RecordCheck``) made again until every stored output
    /// they rest on was checked (``BlobCheck``), and last the stateless nodes, which follow what they wait for.
    /// - Parameters:
    ///   - plan: The plan.
    ///   - records: The store's latest record per node id.
    ///   - settings: `--force`, `--rerun`, `--no-optimize`.
    ///   - revalidate: Asks the servers of the source nodes given (``NodeKeys/unverifiedSourceNodes``) which
    ///     version they have now (``SourceRevalidation``); the identities it returns, by node index, replace what
    ///     ``TaskType/sourceIdentity(_:directory:cache:)`` says, and the keys are computed again. Called only
    ///     when there are such nodes; `nil` asks no server.
    package init(
        plan: Plan, records latest: LatestRecords, settings: Settings,
        revalidate: (([Int]) -> [Int: SourceIdentity])? = nil
    ) {
        let options = ["optimize=\(settings.optimize)"]
        let tasks = TaskFacts.of(plan, options: options)
        let keepsNothing = plan.nodes.map { tasks[$0.taskIndex].keepsNothing }
        let ownRecords = Records(latest: latest, nodes: plan.nodes)
        // The sources the keys read and the files the decisions check, read ahead on a thread of their own while
        // the keys are computed.
        let stamps = FileStamps(plan: plan, outputs: !latest.isEmpty)
        var keys = NodeKeys(
            plan: plan, tasks: tasks, keepsNothing: keepsNothing, revalidated: [:],
            records: ownRecords, dryRun: settings.dryRun, stamps: stamps)
        if let revalidate, !keys.unverifiedSourceNodes.isEmpty {
            let revalidated = revalidate(keys.unverifiedSourceNodes)
            if !revalidated.isEmpty {
                keys = NodeKeys(
                    plan: plan, tasks: tasks, keepsNothing: keepsNothing, revalidated: revalidated,
                    records: ownRecords, dryRun: settings.dryRun, stamps: stamps)
            }
        }
        let rerunBy = KeptDecisions.rerunBy(plan, tasks: tasks, rerun: settings.rerun)
        var blobs = BlobCheck(blobs: settings.blobs)
        var kept: KeptDecisions
        var skips = SettledSkips()
        var foundSkips: Bool
        repeat {
            kept = KeptDecisions(
                plan: plan, tasks: tasks, keys: keys, records: ownRecords, settings: settings, rerunBy: rerunBy,
                blobs: &blobs, stamps: stamps, skips: skips)
            // Decided again knowing them, so that nothing runs for the nodes skipped with them.
            foundSkips = kept.skips != skips
            skips = kept.skips
        } while blobs.checkPending() || foundSkips
        var causes = kept.causes
        Self.decideStateless(
            plan, tasks: tasks, settings: settings, rerunBy: rerunBy, keys: keys.keys, records: kept.records,
            cold: latest.isEmpty, causes: &causes)
        for node in skips.nodes { causes[node] = nil }
        self.skips = skips
        keyedByOutput = Set(kept.runEveryTime)
        awaitingOutput = Self.outputsAwaited(plan, runEveryTime: kept.runEveryTime, causes: causes)
        inputs = keys.inputs
        self.keys = keys.keys
        outputPaths = keys.outputPaths
        hashedOutputs = keys.hashedOutputs
        self.keepsNothing = keepsNothing
        awaitingConfirmation = keys.awaitingConfirmation.filter { causes[$0.key] == nil }
        self.causes = causes
        records = kept.records
        storesValue = plan.nodes.indices.map { index in
            settings.blobs != nil
                && tasks[plan.nodes[index].taskIndex].storesValue(keep: settings.keepValues.contains(index))
        }
        optimize = settings.optimize
        failedLastRun = settings.failedLastRun
        restoredNodes = kept.restored
        if !awaitingOutput.isEmpty {
            restoredNodes = Self.servingAwaited(
                plan, tasks: tasks, awaiting: awaitingOutput, causes: causes, records: kept.records,
                outputPaths: keys.outputPaths, restored: kept.restored)
        }
        unusableBlobs = kept.unusable
        verifiedBlobs = blobs.verified
        restoredFiles = settings.restoredFiles.filter { causes[$0] == nil }
    }

    /// The decisions for some nodes of the plan, by their new indices (as ``Plan/restricted(to:)`` numbers them):
    /// what the gather phase of a split run uses, having decided over the whole plan.
    package func restricted(to nodes: [Int]) -> UpToDate {
        var position = [Int](repeating: -1, count: keys.count)
        for (newIndex, oldIndex) in nodes.enumerated() { position[oldIndex] = newIndex }
        var copy = self
        copy.inputs = inputs.restricted(to: nodes)
        copy.keys = nodes.map { keys[$0] }
        copy.keepsNothing = nodes.map { keepsNothing[$0] }
        copy.causes = nodes.map { causes[$0] }
        copy.skips = skips.restricted(to: nodes)
        copy.outputPaths = nodes.map { outputPaths[$0] }
        copy.hashedOutputs = [:]
        for (node, pattern) in hashedOutputs where position[node] >= 0 { copy.hashedOutputs[position[node]] = pattern }
        copy.records = records.restricted(to: nodes)
        copy.storesValue = nodes.map { storesValue[$0] }
        copy.restoredFiles = Set(restoredFiles.compactMap { position[$0] >= 0 ? position[$0] : nil })
        copy.restoredNodes = restoredNodes.compactMap { position[$0] >= 0 ? position[$0] : nil }
        copy.keyedByOutput = Set(keyedByOutput.compactMap { position[$0] >= 0 ? position[$0] : nil })
        copy.awaitingOutput = [:]
        for (node, source) in awaitingOutput where position[node] >= 0 && position[source] >= 0 {
            copy.awaitingOutput[position[node]] = position[source]
        }
        copy.awaitingConfirmation = [:]
        for (node, source) in awaitingConfirmation where position[node] >= 0 && position[source] >= 0 {
            copy.awaitingConfirmation[position[node]] = position[source]
        }
        return copy
    }
}

extension UpToDate {
    /// ``restoredNodes`` with the up-to-date `write`s whose recorded files a node of ``awaitingOutput`` reads: it
    /// may run, and then gets them as a node decided to run does (``KeptDecisions``), not nothing.
    static func servingAwaited(
        _ plan: Plan, tasks: [TaskFacts], awaiting: [Int: Int], causes: [RunCause?], records: Records,
        outputPaths: [String?], restored: [Int]
    ) -> [Int] {
        var serving = Set(restored)
        for node in awaiting.keys {
            let reader = tasks[plan.nodes[node].taskIndex]
            guard reader.readsInputFiles || reader.readsInput else { continue }
            plan.graph.forEachDependency(of: node) { dependency in
                guard causes[dependency] == nil, awaiting[dependency] == nil,
                    tasks[plan.nodes[dependency].taskIndex].kind.providesFile, let path = outputPaths[dependency],
                    records[dependency]?.output?.path == path
                else { return }
                serving.insert(dependency)
            }
        }
        return serving.count == restored.count ? restored : serving.sorted()
    }

    /// The up-to-date nodes downstream of a node that runs every time and runs, each with the first such node
    /// found: walked from those nodes alone, so a plan without any costs nothing.
    static func outputsAwaited(_ plan: Plan, runEveryTime: [Int], causes: [RunCause?]) -> [Int: Int] {
        var awaited: [Int: Int] = [:]
        var seen = Set<Int>()
        var pending: [(node: Int, producer: Int)] = runEveryTime.filter { causes[$0] != nil }.map { ($0, $0) }
        while let (node, producer) = pending.popLast() {
            plan.graph.forEachDependent(of: node) { dependent in
                guard seen.insert(dependent).inserted else { return }
                if causes[dependent] == nil { awaited[dependent] = producer }
                pending.append((dependent, producer))
            }
        }
        return awaited
    }
}
