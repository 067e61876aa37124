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
///   nothing it waits for changed (see ``decideStateless(_:tasks:settings:cold:rerunBy:keepsNothing:keys:records:causes:)``):
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
        /// The store's latest result with a key, whichever node recorded it (``RunStore/record(withKey:)``):
        /// where a node's own record has another key, a result of the same work serves.
        package var recordWithKey: (@Sendable (NodeKey) -> JournalRecord?)?

        /// Creates settings.
        package init(
            force: Bool = false, rerun: Set<String> = [], optimize: Bool = true, blobs: BlobStore? = nil,
            keepValues: Set<Int> = [], readValues: Set<Int> = []
        ) {
            self.readValues = readValues
            self.force = force
            self.rerun = rerun
            self.optimize = optimize
            self.blobs = blobs
            self.keepValues = keepValues
        }
    }

    /// What went into each node's key, by index in ``Plan/nodes``; `nil` where ``keys`` has none.
    package private(set) var inputs: [NodeKeyInputs?]
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
    /// The store's latest record of each node, where the decision used one.
    ///
    /// By node index, and sparse: a cold store, or a plan of nodes the store keeps nothing of, fills nothing.
    package private(set) var records: [Int: JournalRecord]
    /// Whether each node that runs stores its output as a blob: it says `cache: true` (or is in
    /// ``Settings/keepValues``) and its output is a value the store can keep.
    package private(set) var storesValue: [Bool]
    /// The up-to-date nodes whose stored output a node that runs reads, ascending: what
    /// ``RunOptions/restoredNodes`` takes. Their blobs were found intact.
    package private(set) var restoredNodes: [Int]
    /// Whether the run allows equivalent-output shortcuts (``Settings/optimize``).
    package let optimize: Bool
    /// The stamps of the blobs checked before the run, by name: a restore reads the same file without hashing
    /// it again.
    package let verifiedBlobs: [String: FileStamp]
    /// Stored outputs found unusable (missing, damaged, made for other consumers), one line each: their nodes run.
    package let unusableBlobs: [String]

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

    /// Decides for every node of a plan.
    /// - Parameters:
    ///   - plan: The plan.
    ///   - records: The store's latest record per node id.
    ///   - settings: `--force`, `--rerun`, `--no-optimize`.
    ///   - revalidated: The identities sources have now, where ``SourceRevalidation`` could ask, by node index;
    ///     they replace what ``TaskType/sourceIdentity(_:directory:cache:)`` says.
    package init(
        plan: Plan, records latest: [String: JournalRecord], settings: Settings,
        revalidated: [Int: SourceIdentity] = [:]
    ) {
        let count = plan.nodes.count
        let graph = plan.graph
        let options = ["optimize=\(settings.optimize)"]
        let tasks = TaskFacts.of(plan, options: options)
        let keepsNothing = plan.nodes.map { tasks[$0.taskIndex].keepsNothing }
        let keyed = Self.keyed(plan, keepsNothing: keepsNothing)
        var inputs: [NodeKeyInputs?] = []
        var keys: [NodeKey?] = []
        var outputPaths: [String?] = []
        var rerunBy = [String?](repeating: nil, count: settings.rerun.isEmpty ? 0 : count)
        var changing = [String?](repeating: nil, count: count)
        let runNonce = UUID().uuidString
        inputs.reserveCapacity(count)
        keys.reserveCapacity(count)
        outputPaths.reserveCapacity(count)
        var scratch = ByteWriter()
        for (index, node) in plan.nodes.enumerated() {
            let task = tasks[node.taskIndex]
            if !settings.rerun.isEmpty {
                if settings.rerun.contains(task.id) {
                    rerunBy[index] = task.id
                } else {
                    graph.forEachDependency(of: index) { if rerunBy[index] == nil { rerunBy[index] = rerunBy[$0] } }
                }
            }
            guard keyed[index] else {
                keys.append(nil)
                inputs.append(nil)
                outputPaths.append(nil)
                continue
            }
            // Parameters that do not depend on the item are resolved, encoded and identified once per task.
            let resolved = task.sharedParameters ?? task.resolve(plan.parameters(of: node), options: options)
            let source = revalidated[index] ?? resolved.source
            // A source that changes every run gets a key of this run only, so everything downstream runs too.
            if source?.changesEveryRun == true { changing[index] = source?.description }
            var upstream: [NodeKeyInputs.Upstream] = []
            upstream.reserveCapacity(graph.dependencyCount(of: index))
            graph.forEachDependency(of: index) { dependency in
                // Keyed: a keyed node's dependencies are (``keyed(_:keepsNothing:)``).
                if let key = keys[dependency] { upstream.append(.init(node: plan.nodes[dependency].id, key: key)) }
            }
            let nodeInputs = NodeKeyInputs(
                type: task.typeName, implementation: task.implementation, options: options,
                parameters: resolved.canonical, upstream: upstream,
                source: source.map { $0.changesEveryRun ? "\($0) run \(runNonce)" : $0.description })
            keys.append(nodeInputs.key(after: resolved.keyPrefix, encodingIn: &scratch))
            inputs.append(nodeInputs)
            outputPaths.append(resolved.outputPath)
        }

        let storesValue = plan.nodes.indices.map { index in
            settings.blobs != nil
                && tasks[plan.nodes[index].taskIndex].storesValue(keep: settings.keepValues.contains(index))
        }
        var causes = [RunCause?](repeating: nil, count: count)
        var records: [Int: JournalRecord] = [:]
        var restored: [Int] = []
        var unusable: [String] = []
        // Blobs checked (read whole and hashed), by name. A pass takes a blob not checked yet as intact and notes
        // it; those are then checked at once, on every core, and the decisions made again until every blob they
        // rest on was checked (once, unless one was found damaged).
        var checked: [String: Result<FileStamp, BlobError>] = [:]
        var pending: [String: (reference: BlobReference, type: any StorableOutput.Type)] = [:]
        func problem(_ blob: BlobReference, _ type: any StorableOutput.Type) -> String? {
            guard let result = checked[blob.sha256] else {
                pending[blob.sha256] = (blob, type)
                return nil
            }
            if case .failure(let error) = result { return error.description }
            return nil
        }
        repeat {
            if let blobs = settings.blobs, !pending.isEmpty {
                let batch = Array(pending.values)
                for (blob, result) in zip(batch, blobs.check(batch)) { checked[blob.reference.sha256] = result }
                pending = [:]
            }
            restored = []
            unusable = []
            for index in plan.nodes.indices.reversed() where !keepsNothing[index] {
                // Keyed: every node but a stateless task's is.
                guard let key = keys[index], let nodeInputs = inputs[index] else { continue }
                let node = plan.nodes[index]
                let task = tasks[node.taskIndex]
                var read = false
                var reader: Int?
                graph.forEachDependent(of: index) { dependent in
                    guard tasks[plan.nodes[dependent].taskIndex].readsInput else { return }
                    read = true
                    if reader == nil, causes[dependent] != nil { reader = dependent }
                }
                // A cold store has no record to look up.
                if !latest.isEmpty {
                    records[index] = latest[node.id]
                    // Found by key (an item that moved, a result another node made): the same work.
                    if records[index]?.key != key, let found = settings.recordWithKey?(key) { records[index] = found }
                }
                let readBack = settings.readValues.contains(index)
                causes[index] = Self.cause(
                    force: settings.force, rerunBy: rerunBy.isEmpty ? nil : rerunBy[index],
                    changing: changing[index],
                    cache: readBack ? .enabled : task.cache, cachedByDefault: readBack || task.cachedByDefault,
                    record: records[index], inputs: nodeInputs, key: key, outputPath: outputPaths[index],
                    judgedOnRecord: !read,
                    reader: reader.map { plan.nodes[$0].id })
                guard settings.blobs != nil, let valueType = task.valueType else { continue }
                // Needed by a reader and otherwise up to date: the stored output serves, if it is intact.
                if case .neededBy? = causes[index], let blob = records[index]?.blob {
                    let current = task.type.outputVariant(
                        facts: blob.facts, consumers: plan.consumers(of: index), optimize: settings.optimize)
                    if current != blob.variant {
                        causes[index] = .storedForOtherConsumers(from: blob.variant, to: current)
                    } else if let problem = problem(blob, valueType) {
                        causes[index] = .storedOutputUnusable(problem)
                        unusable.append("\(node.id): \(problem)")
                    } else {
                        causes[index] = nil
                        restored.append(index)
                    }
                } else if causes[index] == nil, settings.keepValues.contains(index) {
                    // A value the gather phase reads is up to date only while the store still holds it.
                    if let blob = records[index]?.blob {
                        if let problem = problem(blob, valueType) {
                            causes[index] = .storedOutputUnusable(problem)
                            unusable.append("\(node.id): \(problem)")
                        }
                    } else {
                        causes[index] = .storedOutputUnusable("no value stored for the gather phase, which reads it")
                    }
                }
            }
        } while !pending.isEmpty
        Self.decideStateless(
            plan, tasks: tasks, settings: settings, cold: latest.isEmpty, rerunBy: rerunBy, keepsNothing: keepsNothing,
            keys: keys, records: records, causes: &causes)
        self.inputs = inputs
        self.keepsNothing = keepsNothing
        self.keys = keys
        self.causes = causes
        self.outputPaths = outputPaths
        self.records = records
        self.storesValue = storesValue
        optimize = settings.optimize
        restoredNodes = restored.reversed()
        unusableBlobs = unusable.reversed()
        verifiedBlobs = checked.compactMapValues { try? $0.get() }
    }

    /// The decisions for some nodes of the plan, by their new indices (as ``Plan/restricted(to:)`` numbers them):
    /// what the gather phase of a split run uses, having decided over the whole plan.
    package func restricted(to nodes: [Int]) -> UpToDate {
        var position = [Int](repeating: -1, count: keys.count)
        for (newIndex, oldIndex) in nodes.enumerated() { position[oldIndex] = newIndex }
        var copy = self
        copy.inputs = nodes.map { inputs[$0] }
        copy.keys = nodes.map { keys[$0] }
        copy.keepsNothing = nodes.map { keepsNothing[$0] }
        copy.causes = nodes.map { causes[$0] }
        copy.outputPaths = nodes.map { outputPaths[$0] }
        copy.records = [:]
        for (newIndex, oldIndex) in nodes.enumerated() { copy.records[newIndex] = records[oldIndex] }
        copy.storesValue = nodes.map { storesValue[$0] }
        copy.restoredNodes = restoredNodes.compactMap { position[$0] >= 0 ? position[$0] : nil }
        return copy
    }

    private static func cause(
        force: Bool, rerunBy: String?, changing: String?, cache: CacheSetting?, cachedByDefault: Bool,
        record: JournalRecord?,
        inputs: NodeKeyInputs, key: NodeKey, outputPath: String?, judgedOnRecord: Bool, reader: String?
    ) -> RunCause? {
        if force { return .forced }
        if let rerunBy { return .rerun(task: rerunBy) }
        if let changing { return .unverifiableSource(changing) }
        if cache == .disabled { return .notCached("cache: false") }
        if cache == nil, !cachedByDefault { return .notCached("never reused without `cache: true` (side effects)") }
        let changed: RunCause? =
            if let record {
                record.key == key
                    ? nil : (record.inputs.flatMap { RunCause.firstDifference(from: $0, to: inputs) } ?? .noRecord)
            } else {
                .noRecord
            }
        if judgedOnRecord || outputPath != nil, let changed { return changed }
        if let outputPath, let record, let cause = outputCause(path: outputPath, record: record.output) {
            return cause
        }
        if let reader { return changed ?? .neededBy(node: reader) }
        return nil
    }

    /// Whether a written file is still what the store recorded: the same stamp, or else the same content.
    private static func outputCause(path: String, record: OutputRecord?) -> RunCause? {
        guard let record, record.path == path, let stamp = FileStamp(path: path) else {
            return .outputMissing(path: path)
        }
        if stamp == record.stamp { return nil }
        if stamp.size == record.stamp.size, ContentDigest.ofFile(atPath: path) == record.sha256 { return nil }
        return .outputChanged(path: path)
    }
}
