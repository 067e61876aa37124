import FlowS3
import Foundation
import Synchronization

extension RunStore {
    /// Journals a node that succeeded in this run, with what it wrote, if it writes a file, and its output as a
    /// blob, if the decisions say it stores its value. Nothing of a node that keeps nothing
    /// (``UpToDate/keepsNothing``, a `noop`) is journaled, even when it is keyed.
    /// - Parameters:
    ///   - index: The node's index in ``Plan/nodes``.
    ///   - plan: The plan being run.
    ///   - decisions: The keys and output paths computed before the run.
    ///   - run: This run's id (its start time, ISO 8601).
    ///   - output: The node's output value.
    ///   - observedSource: The version of its source the node read, when it learned one while running
    ///     (``SourceObserving``).
    ///   - sourceFile: The local file the node read as its source, with its digest (``SourceFileObserving``).
    ///   - written: What the node says it wrote (``WrittenFileObserving``): a file it wrote at the node's output
    ///     path is recorded so, without being read back.
    ///   - skipped: For a node that skipped itself (`FlowOperation.Outcome.skipped`), the cause: it is recorded
    ///     with its key and nothing it left, so a later run with the same key skips it again
    ///     (``UpToDate/skippedNodes``).
    package func journal(
        _ index: Int, of plan: Plan, decisions: UpToDate, run: String, output value: (any Sendable)? = nil,
        observedSource: String? = nil, sourceFile: SourceFileRecord? = nil, written: WrittenFile? = nil,
        skipped: String? = nil
    ) {
        guard let key = decisions.keys[index], let inputs = decisions.recordedInputs(of: index) else { return }
        guard !decisions.keepsNothing[index] else {
            // Nothing is kept of it, but a key revised upstream reaches what is kept below it through its own.
            if hasRevisions.load(ordering: .acquiring) {
                _ = revise(index, inputs: inputs, of: plan, observedSource: nil)
            }
            return
        }
        // A node that runs every time is known by what it made, and a skip made nothing: its record would serve
        // no later run.
        if skipped != nil, !decisions.keyedByOutput.isEmpty, decisions.keyedByOutput.contains(index) { return }
        var output: OutputRecord?
        if skipped != nil {
            // Nothing was written, whatever the node's path says.
        } else if let path = decisions.outputPaths[index], let location = S3Location(path) {
            guard let record = S3Outputs.record(of: location) else { return }
            output = record
        } else if let path = decisions.outputPaths[index], let written, written.path == path {
            output = OutputRecord(path: path, stamp: written.stamp, sha256: written.sha256)
        } else if let pattern = decisions.hashedOutputs[index] {
            // Named by its content: only the node knows the name it wrote.
            guard let written, OutputHash.matches(pattern, written.path) else { return }
            output = OutputRecord(path: written.path, stamp: written.stamp, sha256: written.sha256)
        } else if let path = decisions.outputPaths[index] {
            // A file that cannot be read back is not recorded as written: the next run writes it again.
            guard let file = ContentDigest.stampedFile(atPath: path) else { return }
            output = OutputRecord(path: path, stamp: file.stamp, sha256: file.sha256)
        }
        if let archive, let output, S3Location(output.path) == nil { archive.keep(output) }
        var blob: BlobReference?
        if decisions.storesValue[index], let value = value as? any StorableOutput {
            blob = store(value, of: index, in: plan, optimize: decisions.optimize)
        }
        let revised = revise(index, inputs: inputs, of: plan, observedSource: observedSource)
        var recordedKey = revised?.key ?? key
        if !decisions.keyedByOutput.isEmpty, decisions.keyedByOutput.contains(index) {
            recordedKey = keyByOutput(index, value: value, written: output, decided: key)
        }
        append(
            JournalRecord(
                run: run, node: plan.nodes[index].id, key: recordedKey,
                recordedInputs: revised.map { .decoded($0.inputs) } ?? inputs, output: output, blob: blob,
                sourceFile: sourceFile, skipped: skipped))
    }

    /// Journals that a node which writes a file wrote nothing for its inputs now — it was skipped because a node
    /// upstream skipped itself — when its latest record has a file: that file, made for other inputs, is then stale
    /// (``staleOutputs(directory:name:producing:)``), though the workflow still names it. Once journaled, later
    /// runs that skip it again add nothing.
    package func journalWroteNothing(_ index: Int, of plan: Plan, decisions: UpToDate, run: String) {
        guard decisions.outputPaths[index] != nil, decisions.records[index]?.output != nil,
            let key = decisions.keys[index], let inputs = decisions.recordedInputs(of: index)
        else { return }
        append(
            JournalRecord(
                run: run, node: plan.nodes[index].id, key: key, recordedInputs: inputs, output: nil, blob: nil))
    }

    /// The key of a node that runs every time, as its record holds it and its dependents read it: the digest of
    /// what it made (``OutputDigest``). Revised for the rest of the run when it is not the one the decisions
    /// read from its last record, so what reads the output runs (``UpToDate/inputChanged(_:of:revisedKey:)``).
    private func keyByOutput(_ index: Int, value: (any Sendable)?, written: OutputRecord?, decided: NodeKey)
        -> NodeKey
    {
        let key = OutputDigest.key(of: value, written: written) ?? OutputDigest.unrepeatable()
        revisedKeys.withLock { keys in
            if key != decided { keys[index] = key } else { keys[index] = nil }
        }
        if key != decided { hasRevisions.store(true, ordering: .releasing) }
        return key
    }

    /// A node's key as revised in this run; `nil` where the decided one stands.
    package func revisedKey(of index: Int) -> NodeKey? {
        guard hasRevisions.load(ordering: .acquiring) else { return nil }
        return revisedKeys.withLock { $0[index] }
    }

    /// Makes room in the journal's index for the records of the nodes the decisions run (``JournalWriter/reserve(records:dataBytes:)``):
    /// each one's node id and output path, and what every record's data holds besides (its inputs' place, its
    /// file's stamp and digest).
    package func expectRecords(of plan: Plan, decisions: UpToDate) {
        var records = 0
        var dataBytes = 0
        for index in decisions.causes.indices where decisions.causes[index] != nil && !decisions.keepsNothing[index] {
            records += 1
            dataBytes += plan.nodes[index].id.utf8.count + (decisions.outputPaths[index]?.utf8.count ?? 0) + 72
        }
        writer?.reserve(records: records, dataBytes: dataBytes)
    }

    /// Journals under their own ids the up-to-date nodes whose result another node recorded (found by key,
    /// ``record(withKey:)``), so the result stays theirs when that node records another; batched, like every
    /// record of a node that wrote nothing now.
    package func adoptResultsFoundByKey(_ plan: Plan, decisions: UpToDate) {
        for (index, record) in decisions.records.foundByKey where decisions.causes[index] == nil {
            let node = plan.nodes[index].id
            guard record.node != node else { continue }
            var adopted = record
            adopted.node = node
            writer?.append(adopted, durable: false)
        }
    }

    /// Journals the `write`s whose missing files were put back before the run (``WrittenFileRestore``) with the
    /// stamps the files have now, so the next run trusts them by stamp instead of hashing them.
    package func journalRestored(_ restored: [Int: FileStamp], decisions: UpToDate) {
        for (index, stamp) in restored.sorted(by: { $0.key < $1.key }) {
            guard var record = decisions.records[index], var output = record.output else { continue }
            output.stamp = stamp
            record.output = output
            writer?.append(record, durable: false)
        }
    }

    /// Writes a node's output as a blob, with the choice it made from its consumers; `nil` after a failure, which
    /// is reported once (a full disk, an unwritable folder: the run goes on, the node is not reused next time).
    private func store(_ value: any StorableOutput, of index: Int, in plan: Plan, optimize: Bool) -> BlobReference? {
        guard !blobsFailed.load(ordering: .relaxed) else { return nil }
        do {
            var reference = try blobs.write(value)
            reference.variant = plan.taskTypes[plan.nodes[index].taskIndex].outputVariant(
                facts: reference.facts, consumers: plan.consumers(of: index), optimize: optimize)
            return reference
        } catch {
            if !blobsFailed.exchange(true, ordering: .relaxed) {
                warn?("\(error); outputs with `cache: true` are not kept in this run, and run again next time")
            }
            return nil
        }
    }

    /// Reads back the stored output of a node the decisions restore, for its readers: its blob, or for a node
    /// whose output is the file it wrote, that file as recorded.
    /// - Returns: The value, or the node's failure when the blob was damaged or removed since the decision (it
    ///   is then removed, so the next run makes the output anew).
    package func restore(_ index: Int, of plan: Plan, decisions: UpToDate) -> Result<any Sendable, NodeFailure> {
        let node = plan.nodes[index]
        let task = plan.task(of: node)
        let type = plan.taskTypes[node.taskIndex]
        if type.provides == .file, let written = decisions.records[index]?.output,
            let path = type.storeFacts(plan.parameters(of: node), directory: plan.workflow.directory, cache: task.cache)
                .outputPath
        {
            // As the node gives it when it runs: the path as the workflow writes it.
            return .success(FileOutput(path: path, byteCount: Int(written.stamp.size)))
        }
        if !decisions.awaitingOutput.isEmpty, decisions.awaitingOutput[index] != nil, !decisions.isRestored(index) {
            // Decided in the run and found unchanged, its output neither a file nor restored: only a node no node
            // reads is restored so (``UpToDate/outputNeeded(_:of:)``); its result is its record.
            return .success(RecordedResult())
        }
        guard let blob = decisions.records[index]?.blob,
            let valueType = plan.taskTypes[node.taskIndex].provides?.valueType
        else {
            return .failure(
                NodeFailure(.internalError, "no stored output to restore", node: node.id, location: task.location))
        }
        do {
            return .success(try blobs.read(blob, as: valueType, verified: decisions.verifiedBlobs[blob.sha256]))
        } catch {
            unlink(blobs.path(of: blob.sha256))
            return .failure(
                NodeFailure(
                    .io, "its stored output changed during the run: \(error); run again to make it anew",
                    node: node.id, location: task.location))
        }
    }

    /// Every node's key as this run ended: the decided one, or the one revised while it ran.
    package func keys(_ decisions: UpToDate) -> [NodeKey?] {
        guard hasRevisions.load(ordering: .acquiring) else { return decisions.keys }
        var keys = decisions.keys
        for (index, key) in revisedKeys.withLock({ $0 }) { keys[index] = key }
        return keys
    }

    /// The inputs and key of a node whose source turned out to be another version than the one it was keyed by
    /// before the run (the first download of a URL, or a resource that changed again since the check), or whose
    /// upstream key was revised so; `nil` when the decided key stands.
    ///
    /// Upstream nodes are journaled before their dependents run, so a revision reaches every node below it.
    private func revise(
        _ index: Int, inputs decided: RecordedInputs, of plan: Plan, observedSource: String?
    ) -> (inputs: NodeKeyInputs, key: NodeKey)? {
        let upstreamRevised = hasRevisions.load(ordering: .acquiring)
        // Decoded only here: a node keyed as decided journals its inputs as they were encoded.
        guard upstreamRevised || observedSource != nil, var inputs = decided.decoded else { return nil }
        var changed = false
        if let observedSource, observedSource != inputs.source {
            inputs.source = observedSource
            changed = true
        }
        if upstreamRevised {
            revisedKeys.withLock { keys in
                for (position, dependency) in plan.dependencies(of: index).enumerated() {
                    guard let key = keys[dependency] else { continue }
                    inputs.upstream[position].key = key
                    changed = true
                }
            }
        }
        guard changed else { return nil }
        let key = inputs.key
        revisedKeys.withLock { $0[index] = key }
        hasRevisions.store(true, ordering: .releasing)
        return (inputs, key)
    }
}

/// The output given to a node decided in the run whose result only its record holds: no node reads it.
struct RecordedResult: Sendable {}
