import FlowS3
import Foundation

extension BucketStore {
    /// What `flowrun cache clean` did to a store in a bucket.
    package struct Cleaned: Sendable {
        /// The store's status after cleaning.
        package var status: RunStore.Status
        /// The segments removed (a kept result moves into one new segment per journal).
        package var segmentsRemoved = 0
        /// The blobs and file copies removed, and their bytes.
        package var objectsRemoved = 0
        package var bytesRemoved: Int64 = 0
        /// The blobs and file copies no record points at that were left because they are younger than the
        /// grace period: a run uploads them before the records that name them.
        package var recentUnreferenced = 0
    }

    /// How long an object no record points at is left: a run uploads its blobs and files first and its records
    /// last, and a clean between the two must not take what those records are about to name.
    package static let defaultGrace = Duration.seconds(3600)

    /// Empties the workflow's part of the store, or keeps of its results what `retention` says, then removes
    /// the blobs and file copies no record of any workflow under the prefix points at that are older than
    /// `grace`.
    ///
    /// The results kept of each journal go up as one new segment (signed, with a key), named by the time of the
    /// last segment it replaces so that the segments of runs that ended since still follow it; only then are
    /// the segments it replaces deleted. A run that ends during the clean loses nothing: its segment is not
    /// among those listed, and its objects are younger than `grace`. A reader that pulls in between sees the
    /// same records twice, which is harmless.
    /// - Throws: ``SessionError/Code/storeUnavailable`` when the bucket cannot be listed, read or written, or
    ///   when results are to be kept from a signed store without its key (they would go up unsigned).
    package func clean(
        workflowName name: String, keeping retention: StoreRetention = StoreRetention(),
        grace: Duration = defaultGrace, now: Date = Date()
    ) throws(SessionError) -> Cleaned {
        var cleaned = Cleaned(status: RunStore.Status(entries: 0, records: 0, bytes: 0))
        do {
            let listing = try listSegments(of: nil)
            let signedOnes = listing.segments.contains { journal, segments in
                Self.isJournal(journal[...], of: name)
                    && segments.contains { listing.signed.contains(journal + "/" + $0) }
            }
            if signedOnes && signing == nil && !retention.keepsNothing {
                throw SessionError(
                    .storeUnavailable,
                    "the store \(url) signs its segments: set FLOWRUN_CACHE_KEY (or FLOWRUN_CACHE_KEY_FILE) to "
                        + "clean it, so that the results kept stay trusted; nothing was removed")
            }
            try fetchSegments(listing.segments)
            let objects = try listObjects()
            let copies = Set(objects.compactMap { $0.key.hasPrefix("files/") ? String($0.key.dropFirst(6)) : nil })
            var referenced = Set<String>()
            for (journal, segments) in listing.segments {
                guard Self.isJournal(journal[...], of: name) else {
                    for segment in segments { referenced.formUnion(objectNames(in: journal, segment)) }
                    continue
                }
                var kept: [JournalRecord] = []
                if !retention.keepsNothing {
                    kept = retention.kept(trustedRecords(of: journal, in: segments).records, now: now) {
                        RunStore.storedObjects(of: $0) { copies.contains($0.sha256) }
                    }
                }
                if !kept.isEmpty, let last = segments.last {
                    try upload(kept, to: journal, after: last)
                    for record in kept { referenced.formUnion(Self.objectNames(of: record)) }
                }
                try forEachConcurrently(segments) { segment throws(S3Error) in
                    try remove(journal: journal, segment: segment, signed: listing.signed)
                }
                cleaned.segmentsRemoved += segments.count
            }
            let oldest = now.addingTimeInterval(-grace.seconds)
            var doomed: [S3Client.ListedObject] = []
            for object in objects where !referenced.contains(object.key) {
                if let written = object.lastModified, written < oldest {
                    doomed.append(object)
                } else {
                    cleaned.recentUnreferenced += 1
                }
            }
            try forEachConcurrently(doomed) { object throws(S3Error) in try client.delete(self.object(object.key)) }
            cleaned.objectsRemoved = doomed.count
            cleaned.bytesRemoved = doomed.reduce(0) { $0 + Int64($1.size) }
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError(.storeUnavailable, "cannot clean the store \(url): \(error)")
        }
        cleaned.status = try status(workflowName: name)
        RunStore.removeUnreferencedBlobs(in: localDirectory)
        return cleaned
    }

    /// The blobs and file copies under the prefix, named from the prefix (`blobs/SHA`, `files/SHA`).
    private func listObjects() throws(S3Error) -> [S3Client.ListedObject] {
        let root = location.key.isEmpty ? "" : location.key + "/"
        var objects: [S3Client.ListedObject] = []
        for folder in ["blobs/", "files/"] {
            try client.list(bucket: location.bucket, prefix: root + folder) {
                (page: [S3Client.ListedObject]) throws(S3Error) in
                for var entry in page where Self.isPlainName(entry.key.dropFirst(root.count + folder.count)) {
                    entry.key = String(entry.key.dropFirst(root.count))
                    objects.append(entry)
                }
            }
        }
        return objects
    }

    /// The objects a segment's records point at; every record counts, signed or not: keeping too much is safe.
    private func objectNames(in journal: String, _ segment: String) -> Set<String> {
        var names = Set<String>()
        _ = Journal.read(atPath: segmentPath(journal: journal, segment: segment)) { record in
            names.formUnion(Self.objectNames(of: record))
        }
        return names
    }

    private static func objectNames(of record: JournalRecord) -> [String] {
        RunStore.storedObjects(of: record) { _ in true }.map(\.name)
    }

    /// Uploads `records` as a new segment of `journal` (its signature first), named by the time of `last`, and
    /// keeps it locally as fetched.
    private func upload(_ records: [JournalRecord], to journal: String, after last: String) throws(S3Error) {
        guard let bytes = Journal.bytes(of: records) else {
            throw S3Error(kind: .service, message: "cannot read a record of \(journal) again", isTransient: false)
        }
        let data = Data(bytes)
        let name = Self.segmentName(nanoseconds: UInt64(max(0, Self.uploadTime(of: last) ?? 0)))
        let local = segmentPath(journal: journal, segment: name)
        if let signing {
            let signature = signing.signature(of: data)
            try client.put(signature, at: object("journals/\(journal)/\(name)\(SegmentSigning.suffix)"))
            try keep(signature, at: local + SegmentSigning.suffix)
        }
        try client.put(data, at: object("journals/\(journal)/\(name)"))
        try keep(data, at: local)
    }

    /// Deletes a segment (after its signature's reader: the segment first, so no reader finds it unsigned) from
    /// the bucket and from the local folder.
    private func remove(journal: String, segment: String, signed: Set<String>) throws(S3Error) {
        try client.delete(object("journals/\(journal)/\(segment)"))
        if signed.contains(journal + "/" + segment) {
            try client.delete(object("journals/\(journal)/\(segment)\(SegmentSigning.suffix)"))
        }
        let local = segmentPath(journal: journal, segment: segment)
        unlink(local)
        unlink(local + SegmentSigning.suffix)
    }
}
