import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The store's append-only journal of finished nodes.
///
/// The file starts with a magic line; then each record is its payload's length (4 bytes, little-endian), the
/// payload's CRC-32C (4 bytes) and the payload (``JournalRecord``). A record is trusted only when its length fits
/// and its checksum matches, so the torn tail a `kill -9` or a full disk leaves is recognised and dropped — with
/// one warning — never half-read.
package enum Journal {
    /// The first bytes of every journal; a different version is read as empty.
    static let magic = Array("flowrun journal 2\n".utf8)
    static let checksumLength = 4
    static let headerLength = 4 + checksumLength
    /// A record larger than this is damage, not data.
    static let maxRecordLength = 64 << 20

    /// What reading a journal found.
    package struct Contents: Sendable {
        /// The intact records, in the order written.
        package var records: [JournalRecord] = []
        /// How many bytes from the start are intact; appending starts here.
        package var intactLength: Int = 0
        /// What was wrong with the rest, for one warning; `nil` when the whole file was intact.
        package var damage: String?
    }

    /// Reads the journal at `path`. A missing file is an empty journal; damage ends the reading, never throws.
    package static func read(atPath path: String) -> Contents {
        let bytes = RegularFile.open(path, owned: true).flatMap { descriptor in
            defer { close(descriptor) }
            return RegularFile.readAll(descriptor)
        }
        switch bytes {
        case .success(let bytes): return parse(bytes)
        case .failure(let failure) where failure.isMissing: return Contents()
        case .failure(let failure):
            return Contents(damage: "cannot read \(path) (\(failure.reason)); starting without it")
        }
    }

    static func parse(_ bytes: [UInt8]) -> Contents {
        var contents = Contents()
        if bytes.isEmpty { return contents }
        guard bytes.starts(with: magic) else {
            contents.damage = "the journal is not one this flowrun writes (or its start is damaged); starting afresh"
            return contents
        }
        var offset = magic.count
        while offset < bytes.count {
            guard let record = record(in: bytes, at: offset) else {
                contents.damage =
                    "ignored a damaged or incomplete record at byte \(offset) of the journal "
                    + "(\(bytes.count - offset) bytes: the end of an interrupted write)"
                break
            }
            contents.records.append(record.value)
            offset = record.end
        }
        contents.intactLength = contents.damage == nil ? bytes.count : offset
        return contents
    }

    private static func record(in bytes: [UInt8], at offset: Int) -> (value: JournalRecord, end: Int)? {
        guard bytes.count - offset >= headerLength else { return nil }
        let length = bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
        let start = offset + headerLength
        guard length <= maxRecordLength, bytes.count - start >= length else { return nil }
        let payload = bytes[start..<start + length]
        guard checksum(payload).elementsEqual(bytes[offset + 4..<start]),
            let record = JournalRecord(decoding: payload)
        else { return nil }
        return (record, start + length)
    }

    static func checksum(_ payload: ArraySlice<UInt8>) -> [UInt8] {
        let crc = CRC32C.checksum(payload)
        return [
            UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8),
            UInt8(truncatingIfNeeded: crc >> 16), UInt8(truncatingIfNeeded: crc >> 24),
        ]
    }

    /// A record framed for the file: length, checksum, payload.
    static func frame(_ record: JournalRecord) -> [UInt8] {
        var framed = ByteWriter()
        append(record, to: &framed)
        return framed.bytes
    }

    /// Frames a record at the end of `out`, encoding it in place: one buffer, no copy.
    static func append(_ record: JournalRecord, to out: inout ByteWriter) {
        let start = out.bytes.count
        out.bytes.append(contentsOf: repeatElement(0, count: headerLength))
        record.encode(into: &out)
        let length = UInt32(out.bytes.count - start - headerLength)
        out.bytes.withUnsafeMutableBytes { raw in
            let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[(start + headerLength)...]))
            raw.storeBytes(of: length.littleEndian, toByteOffset: start, as: UInt32.self)
            raw.storeBytes(of: crc.littleEndian, toByteOffset: start + 4, as: UInt32.self)
        }
    }
}

/// Appends records to a journal as nodes finish, from any thread.
///
/// Records of nodes that wrote a file go to the kernel at once, so a `kill -9` right after a write cannot lose
/// the proof that it happened; the others are batched (a lost batch only means a little work is redone). A
/// failed write (a full disk) is reported once, and the journal stops: the run goes on, what is on disk stays
/// self-consistent.
package final class JournalWriter: Sendable {
    private struct State {
        var descriptor: Int32
        var buffer = ByteWriter()
        var failed = false
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
        state = Mutex(State(descriptor: descriptor, buffer: buffer))
    }

    /// Adds a record; `durable` sends it (and what is batched) to the kernel now.
    package func append(_ record: JournalRecord, durable: Bool) {
        let failure: String? = state.withLock { state in
            guard !state.failed else { return nil }
            // Encoded straight into the batch: a node's record costs no allocation of its own.
            Journal.append(record, to: &state.buffer)
            guard durable || state.buffer.bytes.count >= Self.batchBytes else { return nil }
            return flush(&state)
        }
        if let failure { warn(failure) }
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
        state.buffer.bytes.removeAll(keepingCapacity: true)
        return nil
    }
}
