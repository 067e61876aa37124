import FlowS3

extension UpToDate {
    /// What makes a node run whatever the store holds: the run's options and the task's `cache:` setting, in the
    /// order the store checks them.
    struct RunPolicy: Equatable {
        /// `--force`.
        var force = false
        /// The task `--rerun` named, this node's or one upstream of it.
        var rerunBy: String?
        /// The node's source, when it changes every run (``NodeKeys/unverifiableSources``).
        var unverifiableSource: String?
        /// The task's `cache:` setting.
        var cache: CacheSetting?
        /// Whether its type's results are reused without `cache: true`.
        var cachedByDefault = true

        /// Why the node runs before any record is read; `nil` when the store decides.
        var cause: RunCause? {
            if force { return .forced }
            if let rerunBy { return .rerun(task: rerunBy) }
            if let unverifiableSource { return .unverifiableSource(unverifiableSource) }
            if cache == .disabled { return .notCached("cache: false") }
            if cache == nil, !cachedByDefault { return .notCached("never reused without `cache: true` (side effects)") }
            return nil
        }
    }

    /// Whether what the store recorded of a kept node still serves: its record against its key now, the file it
    /// wrote, and whether a node that runs reads its output.
    struct RecordCheck {
        /// The store's latest record of the node.
        var record: JournalRecord?
        /// What its key is made of now; `nil` when the record has its key (``NodeKeys/inputs``). Decoded only to
        /// tell a changed node's cause.
        var inputs: RecordedInputs?
        /// Its key now.
        var key: NodeKey
        /// The file it writes.
        var outputPath: String?
        /// Whether a node of the run reads its output. A node whose output is read and that writes no file is
        /// judged by its readers, not by its record: while none of them runs, their keys guarantee its own.
        var isRead: Bool
        /// The first node that reads its output and runs.
        var runningReader: String?
        /// When the store last wrote its journal (``RunStore/recordedUntil``).
        var recordedUntil: Int64?
        /// Where the written file's stamp is read.
        var stamps = FileStamps()
        /// The node's index in the plan, by which ``stamps`` holds what it read ahead.
        var node = 0
        /// Whether its output is the file it wrote (`write`): a reader that runs gets that file as recorded
        /// (``KeptDecisions``), so it needs the node run only when the file is not as written.
        var providesFile = false
        /// Whether the file was put back from the store's copy before the run (``Settings/restoredFiles``): it is
        /// what was recorded, so it is not looked at again.
        var restoredFile = false

        /// Whether the node is up to date by its readers alone: its output is read, it writes no file and none of
        /// its readers runs. Its record is then not asked for (on an unchanged rerun of `fetch → write`, half the
        /// nodes).
        var isJudgedByReaders: Bool { isRead && outputPath == nil && runningReader == nil }

        /// Why the node runs, or `nil` when its recorded result serves.
        var cause: RunCause? {
            if isJudgedByReaders { return nil }
            if restoredFile, let record, record.key == key { return nil }
            let changed: RunCause? =
                if let record {
                    record.key == key ? nil : (difference(from: record) ?? .noRecord)
                } else {
                    .noRecord
                }
            if !isRead || outputPath != nil, let changed { return changed }
            if let outputPath, let record,
                let cause = Self.outputCause(
                    path: outputPath, record: record.output, recordedUntil: recordedUntil,
                    stamp: { stamps.stamp(ofRegularFile: $0, node: node) })
            {
                return cause
            }
            if let runningReader, !providesFile { return changed ?? .neededBy(node: runningReader) }
            return nil
        }

        /// The first field in which the key's inputs differ from those of a record with another key.
        private func difference(from record: JournalRecord) -> RunCause? {
            guard let inputs = inputs?.decoded, let recorded = record.inputs else { return nil }
            return RunCause.firstDifference(from: recorded, to: inputs)
        }

        /// Whether a written file is still what the store recorded: the same stamp, or else the same content (an
        /// object in a bucket: the same `ETag`). The stamp is trusted only while the file's inode has not changed
        /// since the store last wrote (`recordedUntil`): an edit that restored the size and modification time is
        /// then found by its content.
        /// - Parameter stamp: Reads a file's stamp and change time (``FileStamp/withChangeTime(path:)``).
        static func outputCause(
            path: String, record: OutputRecord?, recordedUntil: Int64?,
            stamp: (String) -> (stamp: FileStamp, changed: Int64)?
        ) -> RunCause? {
            if let location = S3Location(path), let record, record.path == path {
                return S3Outputs.cause(location, record: record)
            }
            guard let record, record.path == path, let (stamp, changed) = stamp(path) else {
                return .outputMissing(path: path)
            }
            if stamp == record.stamp, changed <= recordedUntil ?? .max { return nil }
            if stamp.size == record.stamp.size, ContentDigest.ofFile(atPath: path) == record.sha256 { return nil }
            return .outputChanged(path: path)
        }
    }
}
