import FlowS3
import Foundation

extension BucketStore {
    /// Uploads the records this run added to its journal as a new segment, after the blobs they point at (so a
    /// reader never finds a record whose blob is not there yet) and the files they record
    /// (``BucketFileArchive``, so another machine restores them instead of making them). Called while the run
    /// still holds the journal's lock (``RunStore/close(beforeReleasing:)``). A failure is one warning: the
    /// segment is kept on this machine and goes up before the next run on it pulls (``sendPending()``).
    package func publish(_ store: RunStore) {
        guard !readOnly else { return }
        let segment: [UInt8]
        do {
            // Only this run's bytes are read: the records before them came from the bucket.
            let journal = try FileHandle(forReadingFrom: URL(fileURLWithPath: store.journalPath))
            defer { try? journal.close() }
            try journal.seek(toOffset: UInt64(max(store.journalStart, Journal.magic.count)))
            guard let added = try journal.readToEnd(), !added.isEmpty else { return }
            segment = Journal.magic + added
        } catch {
            warn("cannot read this run's records in \(store.journalPath) to upload them to \(url): \(error)")
            return
        }
        // A torn tail (a write that failed) stays on this machine: readers get only whole records.
        let parsed = Journal.parse(segment)
        let records = parsed.records
        guard !records.isEmpty else { return }
        let intact = Data(segment.prefix(parsed.intactLength))
        let files = store.archive as? BucketFileArchive
        if let failure = send(intact, of: store.name, files: files, blobs: store.blobs) {
            keepPending(intact, of: store.name)
            warn(
                "cannot upload this run's \(records.count) record\(records.count == 1 ? "" : "s") to \(url): "
                    + "\(failure); they are kept on this machine and go up with its next run on this store")
        }
    }

    /// Uploads a segment of `journal` after the files (``BucketFileArchive``) and blobs its records point at, its
    /// signature before it; keeps it locally as fetched.
    /// - Returns: Why the segment could not be uploaded, or `nil` once it is; a file that cannot be uploaded is a
    ///   warning of its own (another machine makes it again), not a failure.
    private func send(_ segment: Data, of journal: String, files: BucketFileArchive?, blobs: BlobStore) -> S3Error? {
        let records = Journal.parse([UInt8](segment)).records
        if let files {
            let (failed, reason) = files.upload()
            if failed > 0 {
                warn(
                    "cannot upload \(failed) written file\(failed == 1 ? "" : "s") to \(url)/files/: "
                        + "\(reason ?? "unknown"); other machines make \(failed == 1 ? "it" : "them") again")
            }
        }
        // Named once what it points at is up, so the name's time is close to when it appears (the order of
        // segments is their names').
        var name = ""
        do throws(S3Error) {
            let referenced = Set(records.compactMap { $0.blob?.sha256 })
            try forEachConcurrently(Array(referenced)) { sha256 throws(S3Error) in
                guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: blobs.path(of: sha256))) else { return }
                try client.putIfAbsent(bytes, at: object("blobs/" + sha256))
            }
            name = Self.segmentName()
            // The signature first: a reader never finds a signed run's segment without it.
            if let signing {
                try client.put(
                    signing.signature(of: segment), at: object("journals/\(journal)/\(name)\(SegmentSigning.suffix)"))
            }
            try client.put(segment, at: object("journals/\(journal)/\(name)"))
        } catch {
            return error
        }
        // Kept as fetched: the next pull on this machine needs not download what it uploaded.
        let local = segmentPath(journal: journal, segment: name)
        keepLocally(segment, at: local)
        if let signing { keepLocally(signing.signature(of: segment), at: local + SegmentSigning.suffix) }
        return nil
    }

    // MARK: Pending segments

    /// Where the segments that could not be uploaded wait for the next run on this machine.
    var pendingFolder: String { localDirectory + "/pending" }

    /// Keeps a segment that could not be uploaded, so the next run on this machine uploads it (``sendPending()``)
    /// before it pulls: a server that failed at the end of a run loses none of its results.
    private func keepPending(_ segment: Data, of journal: String) {
        keepLocally(segment, at: pendingFolder + "/" + journal + "/" + Self.segmentName())
    }

    /// Uploads the segments earlier runs on this machine could not, with the files they wrote (where they still
    /// hold what was recorded) and the blobs they point at; each one uploaded is removed. One that fails again
    /// waits for the next run.
    func sendPending() {
        guard !readOnly else { return }
        let journals = (try? FileManager.default.contentsOfDirectory(atPath: pendingFolder)) ?? []
        for journal in journals.sorted() where Self.isPlainName(journal[...]) {
            let folder = pendingFolder + "/" + journal
            for segment in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            where segment.hasSuffix(".journal") && Self.isPlainName(segment[...]) {
                let path = folder + "/" + segment
                guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: path)) else { continue }
                let files = BucketFileArchive(self)
                for record in Journal.parse([UInt8](bytes)).records {
                    if let output = record.output { files.keep(output) }
                }
                if let failure = send(
                    bytes, of: journal, files: files, blobs: BlobStore(storeDirectory: localDirectory))
                {
                    warn(
                        "cannot upload the records an earlier run kept in \(path) to \(url): \(failure); they wait for the next run"
                    )
                    return
                }
                unlink(path)
            }
        }
    }

    private func keepLocally(_ bytes: Data, at path: String) {
        if let file = try? AtomicFile(path: path, createFolders: true) {
            _ = try? file.write(bytes)
            _ = try? file.commit()
        }
    }

    /// Uploads a shard's report (``ShardReports``) for the gather phase.
    /// - Throws: ``SessionError/Code/shardReportNotWritten``: the gather would count the shard as missing.
    func publishShardReport(_ report: RunReport, workflowPath: String) throws(SessionError) {
        guard let shard = report.shard else { return }
        let reports = ShardReports(workflowPath: workflowPath, stateDirectory: localDirectory)
        let path = reports.path(of: shard)
        let target = object("shards/" + FilePaths.name(of: path))
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SessionError(
                .shardReportNotWritten, "cannot read the shard report \(path): \(SessionError.reason(error))")
        }
        do throws(S3Error) {
            try client.put(bytes, at: target, contentType: "application/json")
        } catch {
            throw SessionError(.shardReportNotWritten, "cannot upload the shard report to \(target): \(error)")
        }
    }
}
