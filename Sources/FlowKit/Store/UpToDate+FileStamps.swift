import Dispatch
import Foundation

extension UpToDate {
    /// The stamps of the local files the decisions check — the file a source node reads, the file a node wrote —
    /// read ahead of them on every core. On a rerun of 100,000 unchanged items these 200,000 `stat` calls are a
    /// quarter of the work and independent of one another, while the keys and the decisions must go in plan order.
    ///
    /// One file is read ahead per node whose facts validation kept (``ResolvedNodes``): its source, else the file it
    /// writes (only when the store has records to compare it with). Any other file, or a path other than the one
    /// read ahead, is asked of `stat` when the decisions reach it, so every answer is what `stat` says during the
    /// decisions either way.
    ///
    /// Not thread-safe after it is made: one belongs to one pass of decisions.
    final class FileStamps {
        /// A file read ahead: its path, and its stamp and change time (``FileStamp/ofRegularFile(_:)``);
        /// `changed` is ``Int64/min`` when it is not a regular file or cannot be read.
        private struct Entry {
            var path = ""
            var stamp = FileStamp(size: 0, modified: 0, inode: 0)
            var changed = Int64.min
        }

        /// By node index; empty when nothing was read ahead.
        private let entries: [Entry]
        /// Where the files not read ahead are asked.
        private let folders = FolderStat()

        /// Plans with fewer nodes are not worth the threads: their decisions take milliseconds.
        static let readAheadThreshold = 4096

        /// Reads nothing ahead: every stamp is asked when needed.
        init() {
            entries = []
        }

        /// Reads ahead the files of `plan`'s nodes.
        /// - Parameter outputs: Whether to read the files nodes write (a store without records compares none).
        init(plan: Plan, outputs: Bool) {
            guard let resolved = plan.resolvedNodes, plan.nodes.count >= Self.readAheadThreshold,
                ProcessInfo.processInfo.activeProcessorCount > 1
            else {
                entries = []
                return
            }
            let nodes = plan.nodes
            let chunkSize = 2048
            let chunks = (nodes.count + chunkSize - 1) / chunkSize
            entries = [Entry](unsafeUninitializedCapacity: nodes.count) { buffer, initialized in
                guard let start = buffer.baseAddress else { return }
                // Each chunk initialises its own range of entries, none another's, with its own folder descriptor.
                nonisolated(unsafe) let base = start
                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                    let folders = FolderStat()
                    for index in chunk * chunkSize..<min(nodes.count, (chunk + 1) * chunkSize) {
                        var entry = Entry()
                        if let files = resolved.files(index, of: nodes[index].taskIndex),
                            let path = files.source ?? (outputs ? files.output : nil)
                        {
                            entry.path = path
                            if let (stamp, changed) = folders.stamp(ofRegularFile: path) {
                                entry.stamp = stamp
                                entry.changed = changed
                            }
                        }
                        (base + index).initialize(to: entry)
                    }
                }
                initialized = nodes.count
            }
        }

        /// The stamp of the regular file at `path` and when its inode last changed, as
        /// ``FileStamp/withChangeTime(path:)`` reads them: as read ahead for `node` when that was this path.
        func stamp(ofRegularFile path: String, node: Int) -> (stamp: FileStamp, changed: Int64)? {
            guard node < entries.count, !entries[node].path.isEmpty, entries[node].path == path else {
                return folders.stamp(ofRegularFile: path)
            }
            let entry = entries[node]
            return entry.changed == .min ? nil : (entry.stamp, entry.changed)
        }
    }
}
