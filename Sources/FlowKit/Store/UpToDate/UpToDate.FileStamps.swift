import Dispatch
import Foundation
import Synchronization

extension UpToDate {
    /// The stamps of the local files the decisions check — the file a source node reads, the file a node wrote —
    /// read ahead of them on another core. On a rerun of 100,000 unchanged items these 200,000 `stat` calls are a
    /// quarter of the work and independent of one another, while the keys and the decisions must go in plan order:
    /// they run side by side, the read-ahead a chunk of nodes at a time, in plan order, from the moment the
    /// stamps are made.
    ///
    /// One file is read ahead per node whose facts validation kept (``ResolvedNodes``): its source, else the file it
    /// writes (only when the store has records to compare it with). Any other file, a path other than the one
    /// read ahead, or a node the read-ahead has not reached yet is asked of `stat` when the decisions reach it, so
    /// every answer is what `stat` says during the decisions either way.
    ///
    /// Not thread-safe: one belongs to one pass of decisions (the read-ahead is its own business).
    final class FileStamps {
        /// A file read ahead: its path, and its stamp and change time (``FileStamp/ofRegularFile(_:)``);
        /// `changed` is ``Int64/min`` when it is not a regular file or cannot be read.
        private struct Entry {
            var path = ""
            var stamp = FileStamp(size: 0, modified: 0, inode: 0)
            var changed = Int64.min
        }

        /// The entries by node index, filled chunk by chunk in order; `nil` when nothing is read ahead.
        private let readAhead: ReadAhead?
        /// Where the files not read ahead are asked (by the decisions' thread only).
        private let folders = FolderStat()

        /// Plans with fewer nodes are not worth the thread: their decisions take milliseconds.
        static let readAheadThreshold = 4096

        /// Reads nothing ahead: every stamp is asked when needed.
        init() {
            readAhead = nil
        }

        /// Starts reading ahead the files of `plan`'s nodes.
        /// - Parameter outputs: Whether to read the files nodes write (a store without records compares none).
        init(plan: Plan, outputs: Bool) {
            guard let resolved = plan.resolvedNodes, plan.nodes.count >= Self.readAheadThreshold,
                ProcessInfo.processInfo.activeProcessorCount > 1
            else {
                readAhead = nil
                return
            }
            readAhead = ReadAhead(nodes: plan.nodes, resolved: resolved, outputs: outputs)
        }

        deinit {
            readAhead?.stop()
        }

        /// Waits until every node's file is read ahead (or the read-ahead stopped): a test's way to know what is
        /// answered from it.
        func waitForReadAhead() {
            readAhead?.wait()
        }

        /// The stamp of the regular file at `path` and when its inode last changed, as
        /// ``FileStamp/withChangeTime(path:)`` reads them: as read ahead for `node` when that was this path.
        func stamp(ofRegularFile path: String, node: Int) -> (stamp: FileStamp, changed: Int64)? {
            guard let entry = readAhead?.entry(node), !entry.path.isEmpty, entry.path == path else {
                return folders.stamp(ofRegularFile: path)
            }
            return entry.changed == .min ? nil : (entry.stamp, entry.changed)
        }

        /// The entries and the thread that fills them, chunk after chunk; a chunk's entries are read only once it
        /// is counted done (release, then acquire), and freed only once the thread has ended.
        private final class ReadAhead: Sendable {
            nonisolated(unsafe) private let entries: UnsafeMutableBufferPointer<Entry>
            private let chunksDone = Atomic<Int>(0)
            private let stopped = Atomic<Bool>(false)
            private let ended = DispatchSemaphore(value: 0)
            static let chunkSize = 2048

            init(nodes: [PlannedNode], resolved: ResolvedNodes, outputs: Bool) {
                entries = UnsafeMutableBufferPointer<Entry>.allocate(capacity: nodes.count)
                let chunks = (nodes.count + Self.chunkSize - 1) / Self.chunkSize
                // A thread of the shared pool (making one could fail), holding the read-ahead: its entries are freed
                // once the work has ended (``stop()``).
                DispatchQueue.global(qos: .userInitiated).async { [self] in
                    defer { ended.signal() }
                    let folders = FolderStat()
                    for chunk in 0..<chunks {
                        guard !stopped.load(ordering: .relaxed) else { return }
                        for index in chunk * Self.chunkSize..<min(nodes.count, (chunk + 1) * Self.chunkSize) {
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
                            entries.initializeElement(at: index, to: entry)
                        }
                        chunksDone.store(chunk + 1, ordering: .releasing)
                    }
                }
            }

            /// A node's entry, if its chunk is read.
            func entry(_ node: Int) -> Entry? {
                guard node >= 0, node < entries.count, node / Self.chunkSize < chunksDone.load(ordering: .acquiring)
                else { return nil }
                return entries[node]
            }

            func wait() {
                ended.wait()
                ended.signal()
            }

            /// Stops the thread after its chunk and frees the entries it wrote.
            func stop() {
                stopped.store(true, ordering: .relaxed)
                wait()
                let done = min(entries.count, chunksDone.load(ordering: .acquiring) * Self.chunkSize)
                if let base = entries.baseAddress { base.deinitialize(count: done) }
                entries.deallocate()
            }
        }
    }
}
