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
    package let latest: [String: JournalRecord]
    /// How many records the journal holds, superseded ones included.
    package let recordCount: Int
    /// What was wrong with the journal, for one warning.
    package let damage: String?
    /// The store's blobs: node outputs kept as values.
    package let blobs: BlobStore
    private let lock: StoreLock?
    private let writer: JournalWriter?
    /// Where a failure to write a blob is reported; `nil` for a store only read.
    let warn: (@Sendable (String) -> Void)?
    /// Whether writing a blob failed in this run: it is reported once, and no other is tried.
    let blobsFailed = Atomic<Bool>(false)
    /// The keys of nodes whose inputs turned out other than decided before the run (see ``revise(_:inputs:of:observedSource:)``), by node index.
    let revisedKeys = Mutex<[Int: NodeKey]>([:])
    /// Whether ``revisedKeys`` holds any, so the common run never takes its lock.
    let hasRevisions = Atomic<Bool>(false)

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
        directory: String, name: String, contents: Journal.Contents, lock: StoreLock?, writer: JournalWriter?,
        warn: (@Sendable (String) -> Void)? = nil
    ) {
        self.directory = directory
        self.name = name
        blobs = BlobStore(storeDirectory: directory)
        self.warn = warn
        var latest: [String: JournalRecord] = [:]
        latest.reserveCapacity(contents.records.count)
        for record in contents.records { latest[record.node] = record }
        self.latest = latest
        recordCount = contents.records.count
        damage = contents.damage
        self.lock = lock
        self.writer = writer
    }

    /// Reads a store without locking or writing it (dry runs, `explain`, `cache status`).
    package static func read(directory: String, name: String) -> RunStore {
        RunStore(
            directory: directory, name: name, contents: Journal.read(atPath: journalPath(in: directory, name: name)),
            lock: nil, writer: nil)
    }

    /// Opens a store for a run: creates it, takes its lock, reads the journal and opens it for appending.
    /// - Parameters:
    ///   - directory: The store's folder.
    ///   - name: The workflow file's name (``name(ofWorkflowAt:)``).
    ///   - lockWait: How long to wait for another flowrun holding the lock.
    ///   - warn: Where a failure to write the journal later is reported (once).
    /// - Throws: ``StoreError`` when the folder cannot be created or written, or the lock is held.
    package static func open(
        directory: String, name: String, lockWait: Duration = .seconds(5),
        warn: @escaping @Sendable (String) -> Void
    ) throws -> RunStore {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.posix("cannot create \(directory)", Self.errorCode(of: error))
        }
        let lock = try StoreLock(path: directory + "/" + name + ".lock", wait: lockWait)
        BlobStore(storeDirectory: directory).removeStaleTemporaries()
        let path = journalPath(in: directory, name: name)
        var contents = Journal.read(atPath: path)
        if Self.worthCompacting(contents), let compacted = try? compact(contents, at: path) {
            contents = compacted
        }
        let writer = try JournalWriter(path: path, intactLength: contents.intactLength, warn: warn)
        return RunStore(
            directory: directory, name: name, contents: contents, lock: lock, writer: writer, warn: warn)
    }

    /// Journals a finished node. `durable` for a node that wrote a file.
    package func append(_ record: JournalRecord) {
        writer?.append(record, durable: record.output != nil)
    }

    /// Writes what is batched, closes the journal and lets go of the lock.
    package func close() {
        writer?.close()
        // Only once the records are written: a run that takes the lock next reads them.
        lock?.release()
    }

    // MARK: Compaction

    private static func worthCompacting(_ contents: Journal.Contents) -> Bool {
        let live = Set(contents.records.map(\.node)).count
        return contents.records.count > 2 * live + 1000
    }

    /// Rewrites the journal with only the latest record of each node, in their original order, atomically.
    static func compact(_ contents: Journal.Contents, at path: String) throws -> Journal.Contents {
        var seen = Set<String>()
        var kept: [JournalRecord] = []
        for record in contents.records.reversed() where seen.insert(record.node).inserted { kept.append(record) }
        kept.reverse()
        var bytes = Journal.magic
        for record in kept { bytes += Journal.frame(record) }
        let file = try AtomicFile(path: path)
        try file.write(Data(bytes))
        try file.commit()
        return Journal.Contents(records: kept, intactLength: bytes.count, damage: contents.damage)
    }

    static func errorCode(of error: any Error) -> Int32 {
        var current = error as NSError
        while let underlying = current.userInfo[NSUnderlyingErrorKey] as? any Error { current = underlying as NSError }
        return current.domain == NSPOSIXErrorDomain ? Int32(current.code) : EIO
    }
}
