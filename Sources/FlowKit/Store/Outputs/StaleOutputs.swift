import FlowS3
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file an earlier run wrote that the workflow no longer produces: an item removed, a path changed.
package struct StaleOutput: Sendable, Equatable {
    /// The file, as the store recorded it (resolved against the workflow's folder).
    package var path: String
    /// The node that wrote it last.
    package var node: String
    /// Whether it still holds what flowrun wrote; a file changed since (or replaced by a link or a folder) is
    /// never removed.
    package var intact: Bool
    /// The folder on its path that is a symbolic link (or no longer a folder), when there is one: the file is then
    /// left, however it reads, since a removal through the link would reach files elsewhere.
    package var link: String? = nil
    /// Whether it could not be checked (an object in a bucket that could not be listed): it is left.
    package var unchecked = false
}

extension RunStore {
    /// The files the journal records written that none of the workflow's nodes writes now (`produced`) and that
    /// are still there, by path.
    package static func staleOutputs(directory: String, name: String, producing produced: Set<String>)
        -> [StaleOutput]
    {
        staleOutputs(in: Journal.read(atPath: journalPath(in: directory, name: name)), producing: produced)
    }

    /// Removes the stale outputs that still hold what flowrun wrote, and forgets them; the others are left.
    /// Takes the store's lock: it never cleans while a run writes.
    ///
    /// A file is removed only at the path flowrun wrote, never through a symbolic link in any folder of it, and
    /// only when it is the file flowrun wrote (the same size, modification time and inode), or, where it was
    /// written again since (a restore makes a new file), holds the same bytes in the folder it was written to. An
    /// object in a bucket is removed only while its `ETag` is the one recorded (asked again with `If-Match`).
    /// - Parameter forgetting: Whether the journal forgets what was removed; not for the local copy of a bucket
    ///   store, whose records are the bucket's segments (the next pull would not agree with a rewritten copy): the
    ///   removed files are then recorded still, and found missing by the next run, which writes them again only
    ///   if the workflow produces them.
    /// - Returns: Every stale output found, removed or left (``StaleOutput/intact``).
    /// - Throws: ``StoreError/busy(lock:holder:)`` while a run holds the store; I/O errors rewriting the journal.
    @discardableResult
    package static func removeStaleOutputs(
        directory: String, name: String, producing produced: Set<String>, forgetting: Bool = true
    ) throws -> [StaleOutput] {
        guard FileManager.default.fileExists(atPath: directory) else { return [] }
        let lock = try StoreLock(path: directory + "/" + name + ".lock", wait: .zero)
        defer { withExtendedLifetime(lock) {} }
        let path = journalPath(in: directory, name: name)
        let contents = Journal.read(atPath: path)
        let (stale, gone) = examine(contents, producing: produced, removing: true)
        let removed = stale.filter(\.intact).map(\.path)
        if forgetting, !removed.isEmpty || !gone.isEmpty {
            _ = try compact(contents, at: path, forgetting: gone.union(removed))
        }
        return stale
    }

    /// The files the journal records written that are still there, by path, whether the workflow still writes
    /// them or not: what `flowrun clean` removes where they still hold what flowrun wrote.
    package static func writtenOutputs(directory: String, name: String) -> [StaleOutput] {
        examine(Journal.read(atPath: journalPath(in: directory, name: name)), producing: [], removing: false).stale
    }

    /// Removes the files the journal records written that still hold what flowrun wrote, by the rules of
    /// ``removeStaleOutputs(directory:name:producing:)``, under the store's lock. The journal is left as it is:
    /// the next run finds the files missing and writes them again, and the files left stay known (a stale one is
    /// still listed by `cache status`).
    /// - Returns: Every recorded file found, removed or left (``StaleOutput/intact``).
    /// - Throws: ``StoreError/busy(lock:holder:)`` while a run holds the store.
    @discardableResult
    package static func removeWrittenOutputs(directory: String, name: String) throws -> [StaleOutput] {
        guard FileManager.default.fileExists(atPath: directory) else { return [] }
        let lock = try StoreLock(path: directory + "/" + name + ".lock", wait: .zero)
        defer { withExtendedLifetime(lock) {} }
        return examine(Journal.read(atPath: journalPath(in: directory, name: name)), producing: [], removing: true)
            .stale
    }

    /// The last record of each file the journal records written, by path.
    private static func recordedOutputs(_ contents: Journal.Contents) -> [String: JournalRecord] {
        var written: [String: JournalRecord] = [:]
        for record in contents.records {
            if let path = record.output?.path { written[path] = record }
        }
        return written
    }

    /// The nodes whose latest record has no file, though an earlier one of theirs wrote one: a `write` skipped
    /// because a node upstream skipped itself (`withoutEnlargement: skip`) writes nothing for its inputs now, so
    /// what it wrote for earlier inputs is stale even though the workflow names its path.
    private static func nodesWritingNothing(_ contents: Journal.Contents) -> Set<String> {
        var latest: [String: Bool] = [:]
        var wrote = Set<String>()
        for record in contents.records {
            latest[record.node] = record.output != nil
            if record.output != nil { wrote.insert(record.node) }
        }
        return wrote.filter { latest[$0] == false }
    }

    private static func staleOutputs(in contents: Journal.Contents, producing produced: Set<String>)
        -> [StaleOutput]
    {
        examine(contents, producing: produced, removing: false).stale
    }

    /// The stale outputs of `contents` that are still there, by path, and the recorded files that are gone; with
    /// `removing`, those that still hold what flowrun wrote are removed (and stay ``StaleOutput/intact``).
    private static func examine(_ contents: Journal.Contents, producing produced: Set<String>, removing: Bool)
        -> (stale: [StaleOutput], gone: Set<String>)
    {
        let written = recordedOutputs(contents)
        let writingNothing = nodesWritingNothing(contents)
        let hashed = HashedOutputs(contents, producing: produced)
        var stale: [StaleOutput] = []
        var gone = Set<String>()
        // By path: records are journaled in the order nodes finish, which varies from run to run.
        for path in written.keys.sorted() {
            guard let record = written[path], let output = record.output else { continue }
            guard
                !produced.contains(path) && !hashed.produces(path, node: record.node)
                    || writingNothing.contains(record.node)
            else { continue }
            if let object = S3Location(path) {
                switch S3Outputs.found(at: object) {
                case .missing: gone.insert(path)
                case .unknown:
                    stale.append(StaleOutput(path: path, node: record.node, intact: false, unchecked: true))
                case .object(let etag):
                    let intact = etag == output.sha256 && (!removing || S3Outputs.remove(object, ifMatch: etag))
                    stale.append(StaleOutput(path: path, node: record.node, intact: intact))
                }
                continue
            }
            let name = FilePaths.name(of: path)
            let folder: LinkFreeFolder
            switch LinkFreeFolder.open(FilePaths.folder(of: path)) {
            case .success(let opened): folder = opened
            case .failure(.missing):
                gone.insert(path)
                continue
            case .failure(.link(let link)):
                stale.append(StaleOutput(path: path, node: record.node, intact: false, link: link))
                continue
            case .failure(.failed):
                stale.append(StaleOutput(path: path, node: record.node, intact: false))
                continue
            }
            guard let info = folder.status(of: name) else {
                gone.insert(path)
                continue
            }
            var intact = holds(output, info, name, in: folder)
            // Checked again just before: the file removed is the one found to hold what flowrun wrote.
            if intact, removing {
                intact =
                    folder.status(of: name).map { FileIdentity($0) == FileIdentity(info) } == true
                    && folder.remove(name)
            }
            stale.append(StaleOutput(path: path, node: record.node, intact: intact))
        }
        return (stale, gone)
    }

    /// The files named by their content (`${output.hash}`) that the workflow still produces: of the names a
    /// pattern it writes has made, only the one its node wrote last; the others, made of content it no longer
    /// makes, are stale.
    private struct HashedOutputs {
        /// The placeholders the patterns of `produced` hold; empty when none does, and nothing is looked at.
        let spellings: [(text: String, digits: Int)]
        let produced: Set<String>
        /// The file each node's latest record names, for the nodes of a pattern.
        var latest: [String: String] = [:]

        init(_ contents: Journal.Contents, producing produced: Set<String>) {
            self.produced = produced
            spellings = OutputHash.spellings(in: produced)
            guard !spellings.isEmpty else { return }
            for record in contents.records {
                if let path = record.output?.path { latest[record.node] = path } else { latest[record.node] = nil }
            }
        }

        /// Whether `path`, which `node` wrote, is the file a pattern of the workflow makes now.
        func produces(_ path: String, node: String) -> Bool {
            guard !spellings.isEmpty, latest[node] == path else { return false }
            return OutputHash.patterns(of: path, spellings: spellings).contains { produced.contains($0) }
        }
    }

    /// Whether `name` in `folder`, which `lstat` described as `info`, is still the regular file flowrun wrote:
    /// the same stamp, or else the same content. A link is never followed.
    private static func holds(_ output: OutputRecord, _ info: stat, _ name: String, in folder: LinkFreeFolder)
        -> Bool
    {
        guard let (stamp, _) = FileStamp.ofRegularFile(info) else { return false }
        if stamp == output.stamp { return true }
        guard stamp.size == output.stamp.size, let file = folder.openRegularFile(name) else { return false }
        defer { Glibc.close(file) }
        return ContentDigest.digest(ofOpen: file).map(ContentDigest.hex) == output.sha256
    }
}

extension StaleOutput {
    /// The files the nodes of `plan` write, resolved against the workflow's folder: none of them is stale.
    package static func produced(by plan: Plan) -> Set<String> {
        Set(UpToDate(plan: plan, records: [:], settings: .init()).outputPaths.compactMap { $0 })
    }
}
