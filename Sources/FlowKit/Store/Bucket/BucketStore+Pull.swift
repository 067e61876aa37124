import FlowS3
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension BucketStore {
    /// The most bytes one segment or shard report may have: more is damage, not data.
    static let maxObjectBytes = 512 << 20

    /// What a pull does beyond the workflow's journals.
    package struct Pull: Sendable {
        /// Bring the shards' reports too (a gather phase reads them).
        package var shardReports = false

        package init(shardReports: Bool = false) {
            self.shardReports = shardReports
        }
    }

    /// Brings the workflow's part of the bucket into ``localDirectory``: every journal of the workflow (its own,
    /// its shards', its gather's) rebuilt from the segments in the bucket, in the order they were uploaded,
    /// later records winning; the blobs they point at; with ``Pull/shardReports``, the shards' reports.
    ///
    /// Segments are immutable, so each is fetched once per local folder and kept there. A journal a live
    /// flowrun on this machine holds (its lock is taken) is left as it is: that run uploads its own records.
    /// - Parameter name: The workflow file's name (``RunStore/name(ofWorkflowAt:)``).
    /// - Returns: The digests of the written files the records pulled name: the bucket holds their copies (a run
    ///   uploads them before its segment), so they need not go up again.
    /// - Throws: ``SessionError/Code/storeUnavailable`` when the bucket cannot be listed or read.
    @discardableResult
    package func pull(workflowName name: String, _ pull: Pull = Pull()) throws(SessionError) -> Set<String> {
        do {
            let segments = try listSegments(of: name).segments
            try fetchSegments(segments)
            var blobs: [String: BlobReference] = [:]
            var untrusted = 0
            var files = Set<String>()
            for journal in Set(segments.keys).union(localJournals(of: name)) {
                let rebuilt = rebuild(journal, from: segments[journal] ?? [])
                for reference in rebuilt.blobs { blobs[reference.sha256] = reference }
                files.formUnion(rebuilt.files)
                untrusted += rebuilt.untrusted
            }
            if untrusted > 0 {
                warn(
                    "store \(url): \(untrusted) segment\(untrusted == 1 ? " is" : "s are") not signed with this "
                        + "FLOWRUN_CACHE_KEY (unsigned, changed, or signed with another key): "
                        + "\(untrusted == 1 ? "its" : "their") results are ignored, and those nodes run")
            }
            try fetchBlobs(Array(blobs.values))
            if pull.shardReports { try fetchShardReports(of: name) }
            return files
        } catch {
            throw SessionError(.storeUnavailable, "cannot read the store \(url): \(error); nothing was run")
        }
    }

    /// The segment objects of the workflow `name`'s journals (of every workflow under the prefix for `nil`), by
    /// journal name, each list in upload order; and the segments with a signature beside them
    /// (`JOURNAL/SEGMENT`).
    func listSegments(of name: String?) throws(S3Error) -> (segments: [String: [String]], signed: Set<String>) {
        let root = object("journals/").key
        var segments: [String: [String]] = [:]
        var signed = Set<String>()
        try client.list(bucket: location.bucket, prefix: root + (name ?? "")) {
            (page: [S3Client.ListedObject]) throws(S3Error) in
            for entry in page {
                let path = entry.key.dropFirst(root.count)
                guard let slash = path.lastIndex(of: "/") else { continue }
                let journal = path[..<slash]
                var segment = path[path.index(after: slash)...]
                let isSignature = segment.hasSuffix(SegmentSigning.suffix)
                if isSignature { segment = segment.dropLast(SegmentSigning.suffix.count) }
                guard name.map({ Self.isJournal(journal, of: $0) }) ?? Self.isPlainName(journal),
                    segment.hasSuffix(".journal"), Self.isPlainName(segment)
                else { continue }
                if isSignature {
                    signed.insert(journal + "/" + segment)
                } else {
                    segments[String(journal), default: []].append(String(segment))
                }
            }
        }
        return (segments.mapValues { $0.sorted() }, signed)
    }

    /// Whether `journal` is one of the workflow `name`'s: its own, or a part's (`NAME.shard-2-of-4`, `NAME.gather`).
    static func isJournal(_ journal: Substring, of name: String) -> Bool {
        journal == name || (journal.hasPrefix(name + ".") && isPlainName(journal.dropFirst(name.count + 1)))
    }

    /// Where a segment is kept locally.
    func segmentPath(journal: String, segment: String) -> String {
        localDirectory + "/segments/" + journal + "/" + segment
    }

    /// Downloads the segments not kept locally yet.
    func fetchSegments(_ segments: [String: [String]]) throws(S3Error) {
        var missing: [(journal: String, segment: String)] = []
        for (journal, names) in segments {
            for segment in names {
                let path = segmentPath(journal: journal, segment: segment)
                // With a key, a segment fetched without one is fetched again with its signature.
                guard
                    !FileManager.default.fileExists(atPath: path)
                        || (signing != nil && !FileManager.default.fileExists(atPath: path + SegmentSigning.suffix))
                else { continue }
                missing.append((journal, segment))
            }
        }
        try forEachConcurrently(missing) { (journal: String, segment: String) throws(S3Error) in
            let name = object("journals/\(journal)/\(segment)")
            let bytes = try client.get(name, maxBytes: Self.maxObjectBytes).bytes
            let path = segmentPath(journal: journal, segment: segment)
            if signing != nil {
                // Kept as it is: whether it is trusted is decided each time the journal is rebuilt, with the key then.
                let signature: Data
                do throws(S3Error) {
                    signature = try client.get(
                        S3Location(bucket: name.bucket, key: name.key + SegmentSigning.suffix), maxBytes: 1024
                    ).bytes
                } catch  where error.kind == .notFound || error.kind == .tooLarge {
                    signature = Data()
                }
                try keep(signature, at: path + SegmentSigning.suffix)
            }
            try keep(bytes, at: path)
        }
    }

    /// The workflow's journals in the local folder.
    private func localJournals(of name: String) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: localDirectory)) ?? []
        return files.compactMap { file in
            guard file.hasSuffix(".journal") else { return nil }
            let journal = String(file.dropLast(".journal".count))
            return Self.isJournal(journal[...], of: name) ? journal : nil
        }
    }

    /// Rewrites the local journal `journal` from its segments (none: it is removed), under its lock. With a key
    /// (``SegmentSigning``), only the segments it signed are read.
    /// - Returns: The blobs and written files its latest records point at, and how many segments were left out as
    ///   not signed.
    private func rebuild(_ journal: String, from segments: [String]) -> (
        blobs: [BlobReference], files: [String], untrusted: Int
    ) {
        guard let lock = try? StoreLock(path: localDirectory + "/" + journal + ".lock", wait: .zero) else {
            return ([], [], 0)
        }
        defer { lock.release() }
        let path = RunStore.journalPath(in: localDirectory, name: journal)
        guard let last = segments.last else {
            unlink(path)
            return ([], [], 0)
        }
        let (records, untrusted) = trustedRecords(of: journal, in: segments)
        do {
            let kept = try RunStore.compact(Journal.Contents(records: records), at: path)
            Self.setModified(path, to: Self.uploadTime(of: last))
            return (kept.records.compactMap(\.blob), kept.records.compactMap { $0.output?.sha256 }, untrusted)
        } catch {
            warn("store \(url): cannot write \(path): \(error); its results are not reused")
            return ([], [], untrusted)
        }
    }

    /// The records of a journal's segments (kept locally), in upload order; with a key (``SegmentSigning``), of
    /// only the segments it signed.
    /// - Returns: The records, and how many segments were left out as not signed.
    func trustedRecords(of journal: String, in segments: [String]) -> (records: [JournalRecord], untrusted: Int) {
        var records: [JournalRecord] = []
        var untrusted = 0
        for segment in segments {
            let local = segmentPath(journal: journal, segment: segment)
            if let signing {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: local))) ?? Data()
                let signature = try? Data(contentsOf: URL(fileURLWithPath: local + SegmentSigning.suffix))
                guard signing.isSigned(bytes, by: signature) else {
                    untrusted += 1
                    continue
                }
            }
            let before = records.count
            let contents = Journal.read(atPath: local) { records.append($0) }
            if contents.damage != nil {
                warn(
                    "store \(url): the segment \(journal)/\(segment) is damaged or not a journal of this flowrun: "
                        + "its first \(records.count - before) records are used, the rest is not")
            }
        }
        return (records, untrusted)
    }

    /// Downloads the blobs not in the local folder yet, checking each against its name. A blob missing from the
    /// bucket is left out: the store finds it missing and its node runs again.
    private func fetchBlobs(_ references: [BlobReference]) throws(S3Error) {
        let blobs = BlobStore(storeDirectory: localDirectory)
        let missing = references.filter { FileStamp(path: blobs.path(of: $0.sha256))?.size != $0.size }
        try forEachConcurrently(missing) { reference throws(S3Error) in
            let bytes: Data
            do throws(S3Error) {
                bytes = try client.get(object("blobs/" + reference.sha256), maxBytes: Int(reference.size)).bytes
            } catch  where error.kind == .notFound || error.kind == .tooLarge {
                return
            }
            guard ContentDigest.of([UInt8](bytes)) == reference.sha256 else { return }
            try keep(bytes, at: blobs.path(of: reference.sha256))
        }
    }

    /// Replaces the local copies of the shards' reports with those in the bucket.
    private func fetchShardReports(of name: String) throws(S3Error) {
        let folder = localDirectory + "/shards"
        let prefix = name + ".shard-"
        var names: [String] = []
        try client.list(bucket: location.bucket, prefix: object("shards/" + prefix).key) {
            (page: [S3Client.ListedObject]) throws(S3Error) in
            for entry in page {
                let file = entry.key.split(separator: "/").last ?? ""
                if file.hasSuffix(".json"), Self.isPlainName(file.dropFirst(prefix.count)) {
                    names.append(String(file))
                }
            }
        }
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where file.hasPrefix(prefix) && !names.contains(file) {
            unlink(folder + "/" + file)
        }
        try forEachConcurrently(names) { file throws(S3Error) in
            try keep(
                try client.get(object("shards/" + file), maxBytes: Self.maxObjectBytes).bytes, at: folder + "/" + file)
        }
    }

    /// Writes a downloaded object into the local folder, atomically.
    func keep(_ bytes: Data, at path: String) throws(S3Error) {
        do {
            let file = try AtomicFile(path: path, createFolders: true)
            try file.write(bytes)
            try file.commit()
        } catch {
            throw S3Error(kind: .service, message: "cannot keep it in \(path): \(error)", isTransient: false)
        }
    }

    /// Runs `body` on each element, at most ``S3Client/connectionsPerEndpoint`` at once, each worker a thread of
    /// its own (the requests block: `concurrentPerform` would run only as many as there are cores); the first
    /// error is thrown once all ended, and stops the elements not started.
    func forEachConcurrently<Element: Sendable>(
        _ elements: [Element], _ body: @escaping @Sendable (Element) throws(S3Error) -> Void
    ) throws(S3Error) {
        guard !elements.isEmpty else { return }
        let workers = min(elements.count, S3Client.connectionsPerEndpoint)
        let failures = Mutex<S3Error?>(nil)
        let group = DispatchGroup()
        for worker in 0..<workers {
            group.enter()
            Thread {
                defer { group.leave() }
                for index in stride(from: worker, to: elements.count, by: workers) {
                    guard failures.withLock({ $0 == nil }) else { return }
                    do throws(S3Error) {
                        try body(elements[index])
                    } catch {
                        failures.withLock { $0 = $0 ?? error }
                    }
                }
            }.start()
        }
        group.wait()
        if let failure = failures.withLock({ $0 }) { throw failure }
    }

    // MARK: Segment names

    /// A new segment's name: the upload time in nanoseconds since 1970 (20 digits, so names sort by time) and a
    /// random suffix, so two runs never name theirs alike.
    static func segmentName(at date: Date = Date()) -> String {
        segmentName(nanoseconds: UInt64(max(0, date.timeIntervalSince1970) * 1e9))
    }

    /// A new segment's name for a time in nanoseconds since 1970 (``segmentName(at:)``).
    static func segmentName(nanoseconds time: UInt64) -> String {
        let nanoseconds = String(time)
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return String(repeating: "0", count: max(0, 20 - nanoseconds.count)) + nanoseconds + "-" + random + ".journal"
    }

    /// When a segment was uploaded, from its name (nanoseconds since 1970); `nil` for a name not of that form.
    static func uploadTime(of segment: String) -> Int64? {
        Int64(segment.prefix { $0 != "-" })
    }

    /// Sets a file's modification time (nanoseconds since 1970): the rebuilt journal dates from its last segment,
    /// which ``RunStore/recordedUntil`` reads.
    private static func setModified(_ path: String, to nanoseconds: Int64?) {
        guard let nanoseconds else { return }
        let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        _ = [time, time].withUnsafeBufferPointer { utimensat(AT_FDCWD, path, $0.baseAddress, 0) }
    }
}

extension BucketStore {
    /// What `flowrun cache status` shows of a workflow's part of the bucket: the journal is all its segments
    /// (their records and bytes), the blobs and written files' copies are those under the prefix (a paginated
    /// listing each).
    /// - Throws: ``SessionError/Code/storeUnavailable`` when the bucket cannot be listed or read.
    package func status(workflowName name: String) throws(SessionError) -> RunStore.Status {
        try pull(workflowName: name)
        var status = RunStore.status(directory: localDirectory, name: name)
        let folder = localDirectory + "/segments/" + name
        status.records = 0
        status.bytes = 0
        for segment in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let path = folder + "/" + segment
            status.bytes += FileStamp(path: path)?.size ?? 0
            _ = Journal.read(atPath: path) { _ in status.records += 1 }
        }
        var objects: [(count: Int, bytes: Int64)] = []
        for folder in ["blobs/", "files/"] {
            var found: (count: Int, bytes: Int64) = (0, 0)
            do throws(S3Error) {
                try client.list(bucket: location.bucket, prefix: object(folder).key) {
                    (page: [S3Client.ListedObject]) throws(S3Error) in
                    found.count += page.count
                    found.bytes += page.reduce(0) { $0 + Int64($1.size) }
                }
            } catch {
                throw SessionError(.storeUnavailable, "cannot list the \(folder) of the store \(url): \(error)")
            }
            objects.append(found)
        }
        (status.blobs, status.files) = (objects[0], objects[1])
        return status
    }
}
