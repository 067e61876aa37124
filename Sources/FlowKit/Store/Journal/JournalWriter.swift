import FlowBasics
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Appends records to a journal as nodes finish, from any thread.
///
/// Records of nodes that wrote a file go to the kernel at once, so a `kill -9` right after a write cannot lose
/// the proof that it happened; the others are batched (a lost batch only means a little work is redone). A
/// failed write (a full disk) is reported once, and the journal stops: the run goes on, what is on disk stays
/// self-consistent.
///
/// Each record also goes, as it is framed, into the index of what this run appended (``appended()``): the index
/// the run writes at its end is made from it, not by reading back and decoding what was just written.
package final class JournalWriter: Sendable {
    private struct State {
        var descriptor: Int32
        var buffer = ByteWriter()
        /// The journal's length before the buffer: the file offset of the buffer's first byte.
        var written: Int
        var failed = false
        /// This run's records as an index has them; `nil` once one could not be added (the index is then left as
        /// it was, and the next run reads these records from the journal).
        var appended: JournalIndex.Builder? = JournalIndex.Builder(entries: 0, dataBytes: 0)
        var appendedCount = 0
    }

    /// What a run appended to the journal, for its index (``JournalIndex/Builder``).
    struct Appended {
        /// The latest record of each node this run appended, its inputs where they are in the journal.
        var index: JournalIndex.Builder
        /// How many records the run appended, superseded ones included.
        var recordCount: Int
        /// The journal's length once they were written.
        var length: Int
    }

    private let state: Mutex<State>
    private let path: String
    private let warn: @Sendable (String) -> Void
    static let batchBytes = 64 << 10

    /// Opens the journal for appending, after cutting off a damaged tail and writing the magic into a new file.
    /// - Parameters:
    ///   - path: The journal file.
    ///   - intactLength: How much of it ``Journal/read(atPath:)`` found intact.
    ///   - warn: Called once, with a message, if writing fails.
    package init(path: String, intactLength: Int, warn: @escaping @Sendable (String) -> Void) throws {
        let descriptor = try RegularFile.openInStore(path, flags: O_WRONLY | O_CREAT)
        guard ftruncate(descriptor, off_t(intactLength)) == 0, lseek(descriptor, 0, SEEK_END) >= 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw StoreError.posix("cannot prepare \(path)", code)
        }
        self.path = path
        self.warn = warn
        var buffer = ByteWriter()
        buffer.bytes.reserveCapacity(Self.batchBytes + 4096)
        if intactLength == 0 { buffer.bytes = Journal.magic }
        state = Mutex(State(descriptor: descriptor, buffer: buffer, written: intactLength))
    }

    /// Adds a record; `durable` sends it (and what is batched) to the kernel now.
    package func append(_ record: JournalRecord, durable: Bool) {
        let failure: String? = state.withLock { state in
            guard !state.failed else { return nil }
            // Encoded straight into the batch: a node's record costs no allocation of its own. A record whose
            // inputs can no longer be read is left out: its node runs again next time.
            guard let inputs = Journal.append(record, to: &state.buffer) else { return nil }
            state.appendedCount += 1
            let inJournal = (state.written + inputs.lowerBound)..<(state.written + inputs.upperBound)
            if state.appended?.add(record, inputsAt: inJournal) == false { state.appended = nil }
            guard durable || state.buffer.bytes.count >= Self.batchBytes else { return nil }
            return flush(&state)
        }
        if let failure { warn(failure) }
    }

    /// Makes room in the index of what this run appends for `records` more records and `dataBytes` more bytes of
    /// their data: a table grown by doubling holds its old and new copies at once, while the run is at its
    /// largest.
    func reserve(records: Int, dataBytes: Int) {
        state.withLock { $0.appended?.reserveCapacity(entries: records, dataBytes: dataBytes) }
    }

    /// Whether a write failed: what the journal holds then is not all this run did.
    var hasFailed: Bool { state.withLock { $0.failed } }

    /// Hands over what this run appended, once the journal is closed; `nil` when a write failed or a record
    /// could not be indexed. It is handed over once: the index it makes is the only one it is needed for.
    func appended() -> Appended? {
        state.withLock { state in
            guard state.descriptor < 0, !state.failed, let index = state.appended else { return nil }
            // Taken out, so the index made from it is its only holder and grows without a copy.
            state.appended = nil
            return Appended(index: index, recordCount: state.appendedCount, length: state.written)
        }
    }

    /// Writes what is batched and closes the file.
    package func close() {
        let failure: String? = state.withLock { state in
            defer {
                if state.descriptor >= 0 { Glibc.close(state.descriptor) }
                state.descriptor = -1
            }
            guard !state.failed, state.descriptor >= 0 else { return nil }
            return flush(&state)
        }
        if let failure { warn(failure) }
    }

    /// Writes the buffer whole or marks the journal failed; returns the warning for a failure.
    private func flush(_ state: inout State) -> String? {
        var written = 0
        let total = state.buffer.bytes.count
        while written < total {
            let result = state.buffer.bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(state.descriptor, base + written, total - written)
            }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                state.failed = true
                let reason = String(cString: strerror(result < 0 ? errno : ENOSPC))
                return "cannot write the store's journal \(path): \(reason); this run's results will not be reused"
            }
            written += result
        }
        state.written += total
        state.buffer.bytes.removeAll(keepingCapacity: true)
        return nil
    }
}
