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
    /// - Returns: Every stale output found, removed or left (``StaleOutput/intact``).
    /// - Throws: ``StoreError/busy(lock:holder:)`` while a run holds the store; I/O errors rewriting the journal.
    @discardableResult
    package static func removeStaleOutputs(directory: String, name: String, producing produced: Set<String>) throws
        -> [StaleOutput]
    {
        guard FileManager.default.fileExists(atPath: directory) else { return [] }
        let lock = try StoreLock(path: directory + "/" + name + ".lock", wait: .zero)
        defer { withExtendedLifetime(lock) {} }
        let path = journalPath(in: directory, name: name)
        let contents = Journal.read(atPath: path)
        var stale = staleOutputs(in: contents, producing: produced)
        var removed = Set<String>()
        for index in stale.indices where stale[index].intact {
            if unlink(stale[index].path) == 0 || errno == ENOENT {
                removed.insert(stale[index].path)
            } else {
                stale[index].intact = false
            }
        }
        let gone = Set(recordedOutputs(contents).keys).subtracting(produced).filter { lstatMode($0) == nil }
        if !removed.isEmpty || !gone.isEmpty {
            _ = try compact(contents, at: path, forgetting: removed.union(gone))
        }
        return stale
    }

    /// The last record of each file the journal records written, by path.
    private static func recordedOutputs(_ contents: Journal.Contents) -> [String: JournalRecord] {
        var written: [String: JournalRecord] = [:]
        for record in contents.records {
            if let path = record.output?.path { written[path] = record }
        }
        return written
    }

    private static func staleOutputs(in contents: Journal.Contents, producing produced: Set<String>)
        -> [StaleOutput]
    {
        let written = recordedOutputs(contents)
        // By path: records are journaled in the order nodes finish, which varies from run to run.
        return written.keys.sorted().compactMap { path in
            guard !produced.contains(path), let record = written[path], let output = record.output,
                lstatMode(path) != nil
            else { return nil }
            return StaleOutput(path: path, node: record.node, intact: holds(output, at: path))
        }
    }

    /// Whether the file at `path` is still the regular file flowrun wrote: the same stamp, or else the same
    /// content. A link is never followed.
    private static func holds(_ output: OutputRecord, at path: String) -> Bool {
        guard lstatMode(path) == S_IFREG, let stamp = FileStamp(path: path) else { return false }
        if stamp == output.stamp { return true }
        return stamp.size == output.stamp.size && ContentDigest.ofFile(atPath: path) == output.sha256
    }

    /// The kind of file at `path` (`S_IFREG`, `S_IFLNK`, …), not following a link; `nil` when there is none.
    private static func lstatMode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }
}

extension StaleOutput {
    /// The files the nodes of `plan` write, resolved against the workflow's folder: none of them is stale.
    package static func produced(by plan: Plan) -> Set<String> {
        Set(UpToDate(plan: plan, records: [:], settings: .init()).outputPaths.compactMap { $0 })
    }
}
