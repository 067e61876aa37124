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
    /// Whether the run allows equivalent-output shortcuts (``Settings/optimize``).
    package let optimize: Bool
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

    /// The up-to-date nodes that are not restored, ascending: what ``RunOptions/cachedNodes`` takes.
    package var cachedNodes: [Int] {
        var restored = restoredNodes[...]
        return causes.indices.filter { index in
            guard causes[index] == nil else { return false }
            if restored.first == index {
                restored.removeFirst()
                return false
            }
            return true
        }
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
        repeat {
            kept = KeptDecisions(
                plan: plan, tasks: tasks, keys: keys, records: ownRecords, settings: settings, rerunBy: rerunBy,
                blobs: &blobs, stamps: stamps)
        } while blobs.checkPending()
        var causes = kept.causes
        Self.decideStateless(
            plan, tasks: tasks, settings: settings, rerunBy: rerunBy, keys: keys.keys, records: kept.records,
            cold: latest.isEmpty, causes: &causes)
        inputs = keys.inputs
        self.keys = keys.keys
        outputPaths = keys.outputPaths
        self.keepsNothing = keepsNothing
        awaitingConfirmation = keys.awaitingConfirmation.filter { causes[$0.key] == nil }
        self.causes = causes
        records = kept.records
        storesValue = plan.nodes.indices.map { index in
            settings.blobs != nil
                && tasks[plan.nodes[index].taskIndex].storesValue(keep: settings.keepValues.contains(index))
        }
        optimize = settings.optimize
        restoredNodes = kept.restored
        unusableBlobs = kept.unusable
        verifiedBlobs = blobs.verified
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
        copy.outputPaths = nodes.map { outputPaths[$0] }
        copy.records = records.restricted(to: nodes)
        copy.storesValue = nodes.map { storesValue[$0] }
        copy.restoredNodes = restoredNodes.compactMap { position[$0] >= 0 ? position[$0] : nil }
        copy.awaitingConfirmation = [:]
        for (node, source) in awaitingConfirmation where position[node] >= 0 && position[source] >= 0 {
            copy.awaitingConfirmation[position[node]] = position[source]
        }
        return copy
    }
}
