import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Puts back, before a run, the files of `write`s that are up to date by key but whose file is gone, from the
/// store's copies (``WrittenFileArchive``): a fresh checkout gets its outputs downloaded instead of made again
/// with every node upstream of them.
///
/// A file is restored only when the node's record has the node's key now and names this path, and the copy is
/// the recorded bytes (size and SHA-256). It is written as a `write` writes it — through a temporary renamed into
/// place, never through a link, never over a file that appeared meanwhile. A copy that is missing or damaged is a
/// warning, and the node runs with its chain, as without a store that keeps copies: never a wrong file.
package enum WrittenFileRestore {
    /// The nodes whose files can be restored: up to date by key, their recorded file missing.
    package static func candidates(_ decisions: UpToDate) -> [(node: Int, output: OutputRecord)] {
        decisions.causes.indices.compactMap { index in
            guard case .outputMissing(let path)? = decisions.causes[index], let key = decisions.keys[index],
                let record = decisions.records[index], record.key == key, let output = record.output,
                output.path == path
            else { return nil }
            return (index, output)
        }
    }

    /// Restores the candidates' files, several at once (the archive's transfers block).
    /// - Returns: The stamp each restored file has now, by node index, and one line per file that was not.
    package static func restore(
        _ candidates: [(node: Int, output: OutputRecord)], from archive: any WrittenFileArchive
    ) -> (restored: [Int: FileStamp], misses: [String]) {
        let results = Mutex<(restored: [Int: FileStamp], misses: [(Int, String)])>(([:], []))
        forEachConcurrently(candidates) { node, output in
            switch put(output, from: archive) {
            case .success(let stamp): results.withLock { $0.restored[node] = stamp }
            case .failure(let miss): results.withLock { $0.misses.append((node, "\(output.path): \(miss)")) }
            }
        }
        let (restored, misses) = results.withLock { $0 }
        return (restored, misses.sorted { $0.0 < $1.0 }.map(\.1))
    }

    /// The candidates whose copies the archive holds, asked without reading them: what a dry run predicts.
    package static func held(_ candidates: [(node: Int, output: OutputRecord)], by archive: any WrittenFileArchive)
        -> Set<Int>
    {
        let held = Mutex(Set<Int>())
        forEachConcurrently(candidates) { node, output in
            if archive.holds(output) { held.withLock { _ = $0.insert(node) } }
        }
        return held.withLock { $0 }
    }

    /// Runs `body` on each candidate, ``concurrency`` at a time, each worker a thread of its own: the archive's
    /// requests block.
    private static func forEachConcurrently(
        _ candidates: [(node: Int, output: OutputRecord)], _ body: @escaping @Sendable (Int, OutputRecord) -> Void
    ) {
        let next = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<min(candidates.count, concurrency) {
            group.enter()
            Thread {
                defer { group.leave() }
                while case let position = next.add(1, ordering: .relaxed).oldValue, position < candidates.count {
                    body(candidates[position].node, candidates[position].output)
                }
            }.start()
        }
        group.wait()
    }

    /// At most this many files are restored at once: as many as the S3 client opens connections to an endpoint.
    static let concurrency = 8

    /// Writes the recorded file at its path from the archive's copy.
    private static func put(_ output: OutputRecord, from archive: any WrittenFileArchive) -> Result<
        FileStamp, WrittenFileArchiveMiss
    > {
        var info = stat()
        if lstat(output.path, &info) == 0 {
            return .failure(WrittenFileArchiveMiss("something else is in its place, which is left as it is"))
        }
        let bytes: Data
        switch archive.bytes(of: output) {
        case .success(let found): bytes = found
        case .failure(let miss): return .failure(miss)
        }
        do {
            // Not over a file: one that appeared since the decision is the user's (or another run's).
            let file = try AtomicFile(path: output.path, overwrite: false, createFolders: true)
            try file.write(bytes)
            guard let stamp = file.stamp(), try file.commit() else {
                file.discard()
                return .failure(WrittenFileArchiveMiss("cannot tell the restored file's stamp"))
            }
            return .success(stamp)
        } catch {
            return .failure(WrittenFileArchiveMiss("cannot write it: \(error)"))
        }
    }
}
