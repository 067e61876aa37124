import FlowS3
import Foundation

extension BucketStore {
    /// Uploads the records this run added to its journal as a new segment, after the blobs they point at (so a
    /// reader never finds a record whose blob is not there yet) and the files they record
    /// (``BucketFileArchive``, so another machine restores them instead of making them). Called while the run still holds the journal's
    /// lock (``RunStore/close(beforeReleasing:)``). A failure is one warning: the run's results stay on this
    /// machine, and another machine runs those nodes again.
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
        if let files = store.archive as? BucketFileArchive {
            let (failed, reason) = files.upload()
            if failed > 0 {
                warn(
                    "cannot upload \(failed) written file\(failed == 1 ? "" : "s") to \(url)/files/: "
                        + "\(reason ?? "unknown"); other machines make \(failed == 1 ? "it" : "them") again")
            }
        }
        var name = ""
        do throws(S3Error) {
            let blobs = Set(records.compactMap { $0.blob?.sha256 })
            try forEachConcurrently(Array(blobs)) { sha256 throws(S3Error) in
                let path = store.blobs.path(of: sha256)
                guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return }
                try client.putIfAbsent(bytes, at: object("blobs/" + sha256))
            }
            // Named once what it points at is up, so the name's time is close to when it appears (the order of
            // segments is their names').
            name = Self.segmentName()
            // The signature first: a reader never finds a signed run's segment without it.
            if let signing {
                try client.put(
                    signing.signature(of: intact), at: object("journals/\(store.name)/\(name)\(SegmentSigning.suffix)"))
            }
            try client.put(intact, at: object("journals/\(store.name)/\(name)"))
        } catch {
            warn(
                "cannot upload this run's \(records.count) record\(records.count == 1 ? "" : "s") to \(url): "
                    + "\(error); other machines will run those nodes again")
            return
        }
        // Kept as fetched: the next pull on this machine needs not download what it uploaded.
        let local = segmentPath(journal: store.name, segment: name)
        keepLocally(intact, at: local)
        if let signing { keepLocally(signing.signature(of: intact), at: local + SegmentSigning.suffix) }
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
