import Foundation

extension RunStore {
    /// What `flowrun cache status` shows.
    package struct Status: Sendable {
        /// The nodes with a recorded result (the latest record of each).
        package var entries: Int
        /// The records in the journal, superseded ones included.
        package var records: Int
        /// The bytes the workflow's journal takes on disk.
        package var bytes: Int64
        /// The id (start time) of the last run that recorded a result.
        package var lastRun: String?
        /// What was wrong with the journal.
        package var damage: String?
        /// The stored outputs the workflow's latest results point at.
        package var referencedBlobs: Int = 0
        /// The blobs in the store, of every workflow it serves, and their bytes.
        package var blobs: (count: Int, bytes: Int64) = (0, 0)
        /// The copies of written files in the store (`--keep-outputs`), of every workflow it serves, and their
        /// bytes.
        package var files: (count: Int, bytes: Int64) = (0, 0)
    }

    /// The status of a workflow's part of the store in `directory`; an absent store is empty.
    package static func status(directory: String, name: String) -> Status {
        let store = read(directory: directory, name: name)
        let bytes = FileStamp(path: journalPath(in: directory, name: name))?.size ?? 0
        let stored = store.blobs.all()
        let copies = FolderFileArchive(storeDirectory: directory).all()
        // Decoded once: `values` decodes every record the index holds.
        let latest = store.latest.values
        return Status(
            entries: store.latest.count, records: store.recordCount, bytes: bytes,
            lastRun: latest.map(\.run).max(), damage: store.damage,
            referencedBlobs: Set(latest.compactMap(\.blob?.sha256)).count,
            blobs: (stored.count, stored.reduce(0) { $0 + $1.size }),
            files: (copies.count, copies.reduce(0) { $0 + $1.size }))
    }

    /// Empties a workflow's part of the store, or keeps of its results what `retention` says (each node's latest,
    /// those within an age or a size). Takes the store's lock, so it never cuts a journal a run is writing.
    ///
    /// Only what the store made is removed: its journal's records, and the blobs, file copies and previews (by
    /// their names) no journal records. A store whose blobs' or previews' folder holds other files (a
    /// `--state-dir` shared with a user's files) is not cleaned at all.
    /// - Returns: The status after cleaning.
    /// - Throws: ``StoreError/busy(lock:holder:)`` while a run holds the store; ``StoreError/notOwned(folder:strangers:)``
    ///   when a folder of the store holds files it did not make; I/O errors.
    @discardableResult
    package static func clean(
        directory: String, name: String, keeping retention: StoreRetention = StoreRetention(), now: Date = Date()
    ) throws -> Status {
        guard FileManager.default.fileExists(atPath: directory) else { return status(directory: directory, name: name) }
        let lock = try StoreLock(path: directory + "/" + name + ".lock", wait: .zero)
        try checkOwnership(of: directory)
        let path = journalPath(in: directory, name: name)
        if retention.keepsNothing {
            if FileManager.default.fileExists(atPath: path) {
                try FileManager.default.removeItem(atPath: path)
                unlink(JournalIndex.path(ofJournal: path))
            }
        } else {
            let contents = Journal.read(atPath: path)
            if !contents.records.isEmpty || contents.damage != nil {
                let copies = FolderFileArchive(storeDirectory: directory)
                let kept = retention.kept(contents.records, now: now) { record in
                    storedObjects(of: record) { copies.holds($0) }
                }
                _ = try rewrite(Journal.Contents(records: kept), at: path)
            }
        }
        removeUnreferencedBlobs(in: directory, holding: name + ".lock")
        withExtendedLifetime(lock) {}
        return status(directory: directory, name: name)
    }

    /// What a record's result takes in a store (``StoreRetention/StoredObject``): its blob, and the copy of its
    /// file where `holdsCopy` says the store has one.
    static func storedObjects(
        of record: JournalRecord, holdsCopy: (OutputRecord) -> Bool
    ) -> [StoreRetention.StoredObject] {
        var objects: [StoreRetention.StoredObject] = []
        if let blob = record.blob { objects.append(("blobs/" + blob.sha256, blob.size)) }
        if let output = record.output, holdsCopy(output) {
            objects.append(("files/" + output.sha256, output.stamp.size))
        }
        return objects
    }

    /// Throws when the blobs' or the previews' folder of the store in `directory` holds files the store did not make.
    private static func checkOwnership(of directory: String) throws(StoreError) {
        let blobs = BlobStore(storeDirectory: directory)
        let previews = PreviewStore(storeDirectory: directory)
        for (folder, strangers) in [(blobs.directory, blobs.strangers()), (previews.directory, previews.strangers())]
        where !strangers.isEmpty {
            throw .notOwned(folder: folder, strangers: strangers)
        }
    }

    /// Removes the blobs and the copies of written files no journal of the store points at (every workflow's,
    /// every shard's), the previews of
    /// results no journal records (``PreviewStore``), and the temporaries of killed runs — only while no other run
    /// uses the store: a live run of another workflow may have written blobs its journal does not record yet
    /// (records are batched), so every other lock of the store is taken first, and nothing is removed when one is
    /// held.
    /// - Parameter own: The lock file (a name in `directory`) the caller already holds, if any.
    /// - Returns: How many blobs were removed.
    @discardableResult
    package static func removeUnreferencedBlobs(in directory: String, holding own: String? = nil) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var locks: [StoreLock] = []
        for lock in names where lock.hasSuffix(".lock") && lock != own {
            guard let taken = try? StoreLock(path: directory + "/" + lock, wait: .zero) else { return 0 }
            locks.append(taken)
        }
        defer { withExtendedLifetime(locks) {} }
        let journals = names.filter { $0.hasSuffix(".journal") }
        var referenced = Set<String>()
        var files = Set<String>()
        var keys = Set<String>()
        for journal in journals {
            for record in Journal.read(atPath: directory + "/" + journal).records {
                if let blob = record.blob { referenced.insert(blob.sha256) }
                if let output = record.output { files.insert(output.sha256) }
                keys.insert(record.key.hex)
            }
        }
        PreviewStore(storeDirectory: directory).removeAll(except: keys)
        FolderFileArchive(storeDirectory: directory).removeAll(except: files)
        return BlobStore(storeDirectory: directory).removeAll(except: referenced)
    }
}
