import FlowBasics
import Foundation

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
    /// Where a record's length and checksum go, filled in once its payload is encoded: appended as one copy, where
    /// repeated zeros are appended one by one.
    private static let emptyHeader = [UInt8](repeating: 0, count: headerLength)
    /// A record larger than this is damage, not data.
    static let maxRecordLength = 64 << 20

    /// What reading a journal found.
    package struct Contents: Sendable {
        /// The intact records, in the order written (none when they were handed to a reader one by one).
        package var records: [JournalRecord] = []
        /// How many bytes from the start are intact; appending starts here.
        package var intactLength: Int = 0
        /// What was wrong with the rest, for one warning; `nil` when the whole file was intact.
        package var damage: String?
        /// The index the reading started from, when asked to and it was intact and of this journal: the records
        /// handed out are only those after what it covers.
        var index: JournalIndex?
    }

    /// Reads the journal at `path` into a list of its records (``read(atPath:each:)``).
    package static func read(atPath path: String) -> Contents {
        var records: [JournalRecord] = []
        var contents = read(atPath: path) { records.append($0) }
        contents.records = records
        return contents
    }

    /// Reads the journal at `path`. A missing file is an empty journal; damage ends the reading, never throws.
    ///
    /// The file is read in chunks and each record keeps only where its inputs are (``JournalRecord/inputs``): the
    /// memory a reading takes grows with the records' keys and outputs, not with the journal's bytes.
    /// - Parameters:
    ///   - start: Where to start reading records: a record's first byte (``Contents/intactLength`` of an earlier
    ///     reading), or 0 for the first record.
    ///   - indexed: Whether to start after what the journal's index covers (``JournalIndex``) when it has an intact
    ///     one of this journal as it is now.
    ///   - each: Given every intact record, in order, and keeping what it needs of them: a run keeps one per node,
    ///     not every record.
    package static func read(
        atPath path: String, from start: Int = 0, indexed: Bool = false, each: (JournalRecord) -> Void
    ) -> Contents {
        let descriptor: Int32
        switch RegularFile.open(path, owned: true) {
        case .success(let opened): descriptor = opened.descriptor
        case .failure(let failure) where failure.isMissing: return Contents()
        case .failure(let failure):
            return Contents(damage: "cannot read \(path) (\(failure.reason)); starting without it")
        }
        let file = JournalFile(descriptor: descriptor)
        var reader = ChunkReader(descriptor: descriptor)
        guard let first = reader.bytes(at: 0, count: magic.count) else {
            if reader.failed { return Contents(damage: "cannot read \(path); starting without it") }
            return reader.end == 0 ? Contents() : foreign()
        }
        guard first.elementsEqual(magic) else { return foreign() }
        var contents = Contents()
        var offset = max(magic.count, start)
        if indexed,
            let index = JournalIndex.load(
                atPath: JournalIndex.path(ofJournal: path), journal: descriptor, file: file)
        {
            contents.index = index
            offset = max(offset, index.coveredLength)
        }
        if offset > magic.count { reader = ChunkReader(descriptor: descriptor, from: offset) }
        var run: String?
        while true {
            guard let header = reader.bytes(at: offset, count: headerLength) else {
                if reader.failed { contents.damage = "cannot read \(path) past byte \(offset); starting from there" }
                if !reader.failed, reader.end > offset { contents.damage = tornTail(at: offset, of: reader.end) }
                break
            }
            let length = Int(littleEndian(header.prefix(4)))
            let expected = littleEndian(header.suffix(checksumLength))
            let payloadStart = offset + headerLength
            guard length <= maxRecordLength, let payload = reader.bytes(at: payloadStart, count: length),
                CRC32C.checksum(payload) == expected,
                let record = JournalRecord(decoding: payload, journal: file, offset: payloadStart, run: run)
            else {
                contents.damage = tornTail(at: offset, of: max(reader.end, offset))
                break
            }
            run = record.run
            each(record)
            offset = payloadStart + length
        }
        contents.intactLength = offset
        return contents
    }

    /// Reads a whole journal held in memory, decoding every record: what the tests check the format with.
    static func parse(_ bytes: [UInt8]) -> Contents {
        var contents = Contents()
        if bytes.isEmpty { return contents }
        guard bytes.starts(with: magic) else { return foreign() }
        var offset = magic.count
        while offset < bytes.count {
            guard let record = record(in: bytes, at: offset) else {
                contents.damage = tornTail(at: offset, of: bytes.count)
                break
            }
            contents.records.append(record.value)
            offset = record.end
        }
        contents.intactLength = contents.damage == nil ? bytes.count : offset
        return contents
    }

    private static func foreign() -> Contents {
        Contents(damage: "the journal is not one this flowrun writes (or its start is damaged); starting afresh")
    }

    private static func tornTail(at offset: Int, of end: Int) -> String {
        "ignored a damaged or incomplete record at byte \(offset) of the journal "
            + "(\(end - offset) bytes: the end of an interrupted write)"
    }

    private static func record(in bytes: [UInt8], at offset: Int) -> (value: JournalRecord, end: Int)? {
        guard bytes.count - offset >= headerLength else { return nil }
        let length = Int(littleEndian(bytes[offset..<offset + 4]))
        let start = offset + headerLength
        guard length <= maxRecordLength, bytes.count - start >= length else { return nil }
        let payload = bytes[start..<start + length]
        guard CRC32C.checksum(payload) == littleEndian(bytes[offset + 4..<start]),
            let record = JournalRecord(decoding: payload)
        else { return nil }
        return (record, start + length)
    }

    /// The 32-bit little-endian number in four bytes of a record's header (its length or its checksum), read
    /// without an array of its own: the journal of a huge graph has hundreds of thousands of records.
    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A record framed for the file: length, checksum, payload; `nil` when its inputs are in a journal that
    /// cannot be read again.
    static func frame(_ record: JournalRecord) -> [UInt8]? {
        var framed = ByteWriter()
        return append(record, to: &framed) != nil ? framed.bytes : nil
    }

    /// A whole journal of `records`: the magic, then each framed; `nil` as ``frame(_:)``.
    static func bytes(of records: [JournalRecord]) -> [UInt8]? {
        var bytes = magic
        for record in records {
            guard let framed = frame(record) else { return nil }
            bytes += framed
        }
        return bytes
    }

    /// Frames a record at the end of `out`, encoding it in place: one buffer, no copy.
    /// - Returns: Where the record's inputs are in `out`'s bytes; `nil`, with `out` as it was, when its inputs are
    ///   in a journal that cannot be read again.
    static func append(_ record: JournalRecord, to out: inout ByteWriter) -> Range<Int>? {
        let start = out.bytes.count
        out.bytes.append(contentsOf: emptyHeader)
        guard let inputs = record.encode(into: &out) else {
            out.bytes.removeSubrange(start...)
            return nil
        }
        let length = UInt32(out.bytes.count - start - headerLength)
        out.bytes.withUnsafeMutableBytes { raw in
            let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[(start + headerLength)...]))
            raw.storeBytes(of: length.littleEndian, toByteOffset: start, as: UInt32.self)
            raw.storeBytes(of: crc.littleEndian, toByteOffset: start + 4, as: UInt32.self)
        }
        return inputs
    }
}
