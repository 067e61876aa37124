import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The previews of the files `write` nodes made, kept in the store beside their results, one small JPEG per node
/// key (`previews/KEY`): a later run that finds the node up to date shows the same preview in its report and
/// `--html` without reading or decoding the file again.
///
/// Kept when a node runs with ``RunOptions/previews``; at most ``Artifact/maxPreviewsPerRun`` a run, as a
/// report keeps. A preview that cannot be written costs only itself.
package final class PreviewStore: Sendable {
    /// The folder of the previews.
    package let directory: String
    /// The largest preview read back: previews are a few kilobytes; anything larger was not written by flowrun.
    package static let maxBytes = 256 << 10
    private let kept = Mutex(0)

    /// The previews of the store in `storeDirectory`.
    package init(storeDirectory: String) {
        directory = storeDirectory + "/previews"
    }

    /// Where the preview of the result with this key lives.
    package func path(of key: NodeKey) -> String {
        directory + "/" + key.hex
    }

    /// Keeps the preview of the result with this key, atomically (a rename: never through a link), unless this
    /// run kept ``Artifact/maxPreviewsPerRun`` already.
    package func keep(_ jpeg: Data, for key: NodeKey) {
        // The folder is made under the lock, so no node of the run writes before it exists.
        let allowed = kept.withLock { count in
            count += 1
            if count == 1 {
                try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            return count <= Artifact.maxPreviewsPerRun
        }
        guard allowed else { return }
        try? jpeg.write(to: URL(fileURLWithPath: path(of: key)), options: .atomic)
    }

    /// The preview kept for the result with this key; `nil` when none was kept (the node ran without previews)
    /// or the file is not one flowrun wrote (larger than ``maxBytes``, not a regular file).
    package func preview(for key: NodeKey) -> Data? {
        guard let stamp = FileStamp(path: path(of: key)), stamp.size <= Int64(Self.maxBytes),
            let handle = FileHandle(forReadingAtPath: path(of: key))
        else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: Self.maxBytes + 1), data.count <= Self.maxBytes else {
            return nil
        }
        return data
    }

    /// Removes every file of the folder but the previews of these keys (hex): what `flowrun cache clean` leaves
    /// once no journal records the results the others belong to, and temporaries of killed runs.
    /// - Returns: How many files were removed.
    @discardableResult
    package func removeAll(except keys: Set<String>) -> Int {
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where !keys.contains(name) {
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }
}

extension RunStore {
    /// A node's key as the run journaled it: the one revised while it ran (``keys(_:)``), or the decided one.
    func key(of index: Int, decisions: UpToDate) -> NodeKey? {
        guard hasRevisions.load(ordering: .acquiring) else { return decisions.keys[index] }
        return revisedKeys.withLock { $0[index] } ?? decisions.keys[index]
    }
}
