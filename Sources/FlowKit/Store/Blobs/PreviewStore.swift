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
        // flowrun's own temporaries, so that a sweep knows what a killed run left (and nothing else).
        guard let file = try? AtomicFile(path: path(of: key)) else { return }
        do {
            try file.write(jpeg)
            try file.commit()
        } catch {
            file.discard()
        }
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

    /// Removes every preview but those of these keys (hex): what `flowrun cache clean` leaves once no journal
    /// records the results the others belong to, and temporaries of killed runs. Only previews: a file of another
    /// name is never removed.
    /// - Returns: How many previews were removed.
    @discardableResult
    package func removeAll(except keys: Set<String>) -> Int {
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where Self.isPreviewName(name) && !keys.contains(name) {
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        WriteTemporaries.removeStale(in: directory) { Self.isPreviewName($0) }
        return removed
    }

    /// The files of the folder the store did not make: neither a preview nor a temporary of one.
    package func strangers() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted().filter { name in
            let written = String(
                name.dropFirst(WriteTemporaries.prefix.count).dropLast(WriteTemporaries.randomLength + 1))
            return !Self.isPreviewName(name)
                && !(Self.isPreviewName(written) && WriteTemporaries.isTemporary(name, of: written))
        }
    }

    /// Whether `name` is a preview's: a node key, 64 lowercase hex digits.
    static func isPreviewName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy(BlobStore.isLowercaseHex)
    }
}

extension RunStore {
    /// A node's key as the run journaled it: the one revised while it ran (``keys(_:)``), or the decided one.
    func key(of index: Int, decisions: UpToDate) -> NodeKey? {
        guard hasRevisions.load(ordering: .acquiring) else { return decisions.keys[index] }
        return revisedKeys.withLock { $0[index] } ?? decisions.keys[index]
    }
}
