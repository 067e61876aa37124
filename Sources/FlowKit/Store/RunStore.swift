import Foundation
import Synchronization

/// The store of a workflow's results across runs: a folder (`.flowrun/` beside the workflow by default) holding,
/// per workflow file, the journal of its finished nodes and its lock (`NAME.yaml.journal`, `NAME.yaml.lock`), so
/// the workflows of one folder neither mix their records nor wait for each other.
///
/// Reading it never fails: a missing store is an empty one, damage is one warning and what is intact is used.
/// Opening it for a run takes the lock, cuts off a damaged tail, and compacts a journal mostly made of records
/// that later ones superseded.
package final class RunStore: Sendable {
    /// The store's folder.
    package let directory: String
    /// The workflow's file name, which names its journal and lock.
    package let name: String
    /// The latest record of each node id.
    package let latest: LatestRecords
    /// How many records the journal holds, superseded ones included.
    package let recordCount: Int
    /// What was wrong with the journal, for one warning.
    package let damage: String?
    /// The store's blobs: node outputs kept as values.
    package let blobs: BlobStore
    /// Where copies of the files this run writes are kept, to be restored when they go (``WrittenFileArchive``);
    /// `nil` keeps none.
    package let archive: (any WrittenFileArchive)?
    /// When the journal was last written before this run (its modification time, in nanoseconds); `nil` without
    /// one. A file the store recorded whose inode changed after that was changed behind the store's back, even
    /// when its size and modification time say otherwise (`touch -r` restores the time, not the inode's ctime).
    package let recordedUntil: Int64?
    /// Where this run's records start in the journal: what it held when opened (compacted, if it was). The
    /// bytes after it are this run's own, which a store in a bucket uploads as the run's segment.
    package let journalStart: Int
    private let lock: StoreLock?
    let writer: JournalWriter?
    /// Where a failure to write a blob is reported; `nil` for a store only read.
    let warn: (@Sendable (String) -> Void)?
    /// Whether writing a blob failed in this run: it is reported once, and no other is tried.
    let blobsFailed = Atomic<Bool>(false)
    /// The keys of nodes whose inputs turned out other than decided before the run (see ``revise(_:inputs:of:observedSource:)``), by node index.
    let revisedKeys = Mutex<[Int: NodeKey]>([:])
    /// Whether ``revisedKeys`` holds any, so the common run never takes its lock.
    let hasRevisions = Atomic<Bool>(false)
    /// Where in ``latest`` the latest record of each key is, made the first time a node's own record has another
    /// key.
    private let byKey = Mutex<RecordsByKey?>(nil)

    /// The folder name of a store beside its workflow.
    package static let defaultName = ".flowrun"

    /// The store of a workflow: `stateDirectory` if given, else `.flowrun` in the workflow's folder.
    package static func directory(for workflow: Workflow, stateDirectory: String?) -> String {
        stateDirectory ?? NodeContext.resolve(defaultName, in: workflow.directory)
    }

    /// The store of the workflow file at `path`, without loading it.
    package static func directory(forWorkflowAt path: String, stateDirectory: String?) -> String {
        stateDirectory ?? NodeContext.resolve(defaultName, in: FilePaths.folder(of: path))
    }

    /// The journal of the workflow file `name` in the store `directory`.
    static func journalPath(in directory: String, name: String) -> String { directory + "/" + name + ".journal" }

    /// The workflow file's name as the store knows it.
    package static func name(ofWorkflowAt path: String) -> String { FilePaths.name(of: path) }

    private init(
        directory: String, name: String, journal: Latest, lock: StoreLock?, writer: JournalWriter?,
        warn: (@Sendable (String) -> Void)? = nil, archive: (any WrittenFileArchive)? = nil
    ) {
        self.directory = directory
        self.name = name
        blobs = BlobStore(storeDirectory: directory)
        self.archive = archive
        self.warn = warn
        latest = journal.records
        recordedUntil = journal.recordedUntil
        recordCount = journal.count
        journalStart = journal.contents.intactLength
        damage = journal.contents.damage
        self.lock = lock
        self.writer = writer
    }

    /// What a run keeps of a journal: the latest record of each node.
    private struct Latest {
        var records = LatestRecords()
        /// The journal's modification time when it was read (``RunStore/recordedUntil``).
        var recordedUntil: Int64?
        var count = 0
        var contents = Journal.Contents()

        /// Reads the journal's index and the records past it, or the whole journal when it has no index that is
        /// intact and current.
        init(atPath path: String) {
            var past = LatestRecords()
            var count = 0
            contents = Journal.read(atPath: path, indexed: true) { record in
                past[record.node] = record
                count += 1
            }
            records = LatestRecords(indexed: contents.index)
            records.merge(past) { _, later in later }
            self.count = count + (contents.index?.recordCount ?? 0)
            recordedUntil = FileStamp(path: path)?.modified
        }

        /// Whether most records may have been superseded: compaction keeps at least one per node, so a journal
        /// with few more records than nodes is not worth reading again to find out.
        var mayBeWorthCompacting: Bool { count > 2 * records.count + 1000 }

        /// Whether most of a journal's records were superseded: compaction would keep under half of them.
        static func worthCompacting(_ contents: Journal.Contents) -> Bool {
            contents.records.count > 2 * Set(contents.records.map(Survivor.init)).count + 1000
        }
    }

    /// The same open store, for another plan run beside this one's (an item batch of a list that streams): it
    /// appends to the same journal and holds no lock of its own, and keeps its own revised keys, which are by
    /// node index in its plan. Its owner closes the store once every run sharing it has ended.
    package func sharedForAnotherPlan() -> RunStore { sharing(lock: nil) }

    /// The same open store, for the last plan of a run made of several: it decides with what the store held when
    /// opened (not with what the run's earlier plans recorded since), and closing it closes the journal and lets
    /// go of the lock. Nothing else may use the store after it.
    package func handedOverToTheLastPlan() -> RunStore { sharing(lock: lock) }

    /// The same open store — its journal, its writer and what it held when opened —, holding `lock`.
    private func sharing(lock: StoreLock?) -> RunStore {
        RunStore(
            directory: directory, name: name, latest: latest, recordedUntil: recordedUntil, recordCount: recordCount,
            journalStart: journalStart, lock: lock, writer: writer, warn: warn, archive: archive)
    }

    private init(
        directory: String, name: String, latest: LatestRecords, recordedUntil: Int64?, recordCount: Int,
        journalStart: Int, lock: StoreLock?, writer: JournalWriter?, warn: (@Sendable (String) -> Void)?,
        archive: (any WrittenFileArchive)?
    ) {
        self.directory = directory
        self.name = name
        blobs = BlobStore(storeDirectory: directory)
        self.archive = archive
        self.warn = warn
        self.latest = latest
        self.recordedUntil = recordedUntil
        self.recordCount = recordCount
        self.journalStart = journalStart
        damage = nil
        self.lock = lock
        self.writer = writer
    }

    /// Reads a store without locking or writing it (dry runs, `explain`, `cache status`).
    package static func read(directory: String, name: String) -> RunStore {
        RunStore(
            directory: directory, name: name, journal: Latest(atPath: journalPath(in: directory, name: name)),
            lock: nil, writer: nil)
    }

    /// Opens a store for a run: creates it, takes its lock, reads the journal and opens it for appending.
    /// - Parameters:
    ///   - directory: The store's folder.
    ///   - name: The workflow file's name (``name(ofWorkflowAt:)``).
    ///   - lockWait: How long to wait for another flowrun holding the lock.
    ///   - warn: Where a failure to write the journal later is reported (once).
    ///   - archive: Where copies of the files the run writes are kept; `nil` keeps none.
    /// - Throws: ``StoreError`` when the folder cannot be created or written, or the lock is held.
    package static func open(
        directory: String, name: String, lockWait: Duration = .seconds(5),
        warn: @escaping @Sendable (String) -> Void, archive: (any WrittenFileArchive)? = nil
    ) throws -> RunStore {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.posix("cannot create \(directory)", Self.errorCode(of: error))
        }
        let lock = try StoreLock(path: directory + "/" + name + ".lock", wait: lockWait)
        BlobStore(storeDirectory: directory).removeStaleTemporaries()
        let path = journalPath(in: directory, name: name)
        // What a compaction or an index write killed before its rename left (``AtomicFile``).
        WriteTemporaries.removeStale(
            ofFilesNamed: [FilePaths.name(of: path), FilePaths.name(of: JournalIndex.path(ofJournal: path))],
            in: directory)
        var journal = Latest(atPath: path)
        // Rare (a journal mostly superseded): read again whole, rewritten, and read as rewritten, so that every
        // record's inputs are where the new file has them (what its index points at).
        if journal.mayBeWorthCompacting {
            let contents = Journal.read(atPath: path)
            if Latest.worthCompacting(contents), let compacted = try? compact(contents, at: path) {
                // Compacting writes the journal anew; what was recorded before still dates from the old one.
                let recordedUntil = journal.recordedUntil
                journal = Latest(atPath: path)
                journal.recordedUntil = recordedUntil
                journal.contents.damage = journal.contents.damage ?? compacted.damage
            }
        }
        let writer = try JournalWriter(path: path, intactLength: journal.contents.intactLength, warn: warn)
        return RunStore(
            directory: directory, name: name, journal: journal, lock: lock, writer: writer, warn: warn,
            archive: archive)
    }

    /// The latest record with `key`, whichever node it is of: results are found by what went into them (content
    /// addressing), so an item that moved in its list, or a node another one did the same work as, is reused.
    package func record(withKey key: NodeKey) -> JournalRecord? {
        byKey.withLock { table in
            if table == nil { table = RecordsByKey(latest) }
            return table?.position(of: key, in: latest).flatMap(latest.record(at:))
        }
    }

    /// Journals a finished node. `durable` for a node that wrote a file.
    package func append(_ record: JournalRecord) {
        writer?.append(record, durable: record.output != nil)
    }

    /// Writes what is batched, closes the journal and lets go of the lock.
    /// - Parameter publish: Called once the journal is written whole and before the lock goes, so no other run
    ///   rewrites the journal while it is read (a store in a bucket uploads this run's records there).
    package func close(beforeReleasing publish: () -> Void = {}) {
        writer?.close()
        publish()
        if lock != nil, let writer, !writer.hasFailed { updateIndex() }
        // Only once the records are written: a run that takes the lock next reads them.
        lock?.release()
    }

    /// The journal's file.
    package var journalPath: String { Self.journalPath(in: directory, name: name) }

    // MARK: Compaction

    /// What compaction keeps one record of: a node, and each file it wrote, so the files earlier runs wrote stay
    /// known until they are cleaned (``staleOutputs(directory:name:producing:)``).
    private struct Survivor: Hashable {
        var node: String
        var path: String?

        init(_ record: JournalRecord) {
            node = record.node
            path = record.output?.path
        }
    }

    /// Rewrites the journal atomically with the latest record of each node and of each file it wrote, in their
    /// original order, leaving out the records of files in `forgetting`.
    static func compact(
        _ contents: Journal.Contents, at path: String, forgetting forgotten: Set<String> = []
    ) throws -> Journal.Contents {
        let kept = latestOfEach(contents.records).filter { record in
            record.output.map { !forgotten.contains($0.path) } ?? true
        }
        return try rewrite(Journal.Contents(records: kept, damage: contents.damage), at: path)
    }

    /// The latest record of each node and of each file it wrote, in their original order.
    static func latestOfEach(_ records: [JournalRecord]) -> [JournalRecord] {
        var seen = Set<Survivor>()
        var kept: [JournalRecord] = []
        for record in records.reversed() where seen.insert(Survivor(record)).inserted {
            kept.append(record)
        }
        return kept.reversed()
    }

    /// Rewrites the journal atomically with `contents`' records.
    static func rewrite(_ contents: Journal.Contents, at path: String) throws -> Journal.Contents {
        let kept = contents.records
        guard let bytes = Journal.bytes(of: kept) else { throw StoreError.posix("cannot read \(path) again", EIO) }
        let file = try AtomicFile(path: path)
        try file.write(Data(bytes))
        try file.commit()
        // Of the journal replaced: the next run that writes makes one of this.
        unlink(JournalIndex.path(ofJournal: path))
        return Journal.Contents(records: kept, intactLength: bytes.count, damage: contents.damage)
    }

    static func errorCode(of error: any Error) -> Int32 {
        var current = error as NSError
        while let underlying = current.userInfo[NSUnderlyingErrorKey] as? any Error { current = underlying as NSError }
        return current.domain == NSPOSIXErrorDomain ? Int32(current.code) : EIO
    }
}
