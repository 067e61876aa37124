import FlowBasics

/// Reads an index's data: LEB128 counts, 8-byte little-endian integers and length-prefixed fields, in place; every
/// read returns `nil` past the end instead of trapping.
struct IndexReader {
    private let bytes: UnsafeRawBufferPointer
    /// Where the next read starts.
    private(set) var position: Int

    init(_ bytes: UnsafeRawBufferPointer, at position: Int) {
        self.bytes = bytes
        self.position = position
    }

    var isAtEnd: Bool { position >= bytes.count }

    /// A count of any size: an index's counts include offsets into the journal, larger than the index.
    mutating func count() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count, shift < 64 {
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    mutating func integer() -> UInt64? {
        guard bytes.count - position >= 8 else { return nil }
        defer { position += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    /// The bytes of a length-prefixed field, in place.
    mutating func field() -> UnsafeRawBufferPointer? {
        guard let length = count(), length <= UInt64(bytes.count - position) else { return nil }
        defer { position += Int(length) }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + Int(length))])
    }

    mutating func string() -> String? {
        field().map { String(decoding: $0, as: UTF8.self) }
    }

    /// `count` bytes in place.
    mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard bytes.count - position >= count else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    /// Steps over what ``ByteWriter/indexedRecord(_:inputs:)`` wrote; `false` for damage.
    mutating func skipIndexedRecord() -> Bool {
        guard field() != nil, count() != nil, count() != nil, let flags = count() else { return false }
        if flags & IndexedRecordFlags.output != 0 {
            guard field() != nil, integer() != nil, integer() != nil, integer() != nil else { return false }
            guard flags & IndexedRecordFlags.textDigest != 0 ? field() != nil : bytes(32) != nil else { return false }
        }
        if flags & IndexedRecordFlags.sourceFile != 0 {
            guard integer() != nil, integer() != nil, integer() != nil, bytes(32) != nil else { return false }
        }
        if flags & IndexedRecordFlags.skipCause != 0, field() == nil { return false }
        if flags & IndexedRecordFlags.blob != 0 {
            guard field() != nil, integer() != nil, field() != nil, let variant = count() else { return false }
            guard variant == 0 || field() != nil else { return false }
        }
        return true
    }
}

/// What an indexed record holds besides its node and inputs.
enum IndexedRecordFlags {
    static let output: UInt64 = 1
    static let blob: UInt64 = 2
    /// The output's digest is text (an `ETag`), not the 32 bytes of a SHA-256.
    static let textDigest: UInt64 = 4
    /// The local file the node read (``SourceFileRecord``): its stamp and 32 bytes of SHA-256.
    static let sourceFile: UInt64 = 8
    /// Why the node skipped itself (``JournalRecord/skipped``): a string.
    static let skipCause: UInt64 = 16
}

extension ByteWriter {
    /// Appends a record's data in an index: its node id, where its inputs are in the journal (`inputs`), and
    /// what it left.
    mutating func indexedRecord(_ record: JournalRecord, inputs: Range<Int>) {
        string(record.node)
        count(inputs.lowerBound)
        count(inputs.count)
        var flags: UInt64 = 0
        if let output = record.output {
            flags |= IndexedRecordFlags.output
            if case .text = output.digest { flags |= IndexedRecordFlags.textDigest }
        }
        if record.blob != nil { flags |= IndexedRecordFlags.blob }
        if record.sourceFile != nil { flags |= IndexedRecordFlags.sourceFile }
        if record.skipped != nil { flags |= IndexedRecordFlags.skipCause }
        count(Int(flags))
        if let output = record.output {
            string(output.path)
            integer(UInt64(bitPattern: output.stamp.size))
            integer(UInt64(bitPattern: output.stamp.modified))
            integer(output.stamp.inode)
            switch output.digest {
            case .bytes(var key): withUnsafeBytes(of: &key) { bytes.append(contentsOf: $0) }
            case .text(let text): string(text)
            }
        }
        if let sourceFile = record.sourceFile {
            integer(UInt64(bitPattern: sourceFile.stamp.size))
            integer(UInt64(bitPattern: sourceFile.stamp.modified))
            integer(sourceFile.stamp.inode)
            var digest = sourceFile.sha256
            withUnsafeBytes(of: &digest) { bytes.append(contentsOf: $0) }
        }
        if let skipped = record.skipped { string(skipped) }
        if let blob = record.blob {
            string(blob.sha256)
            integer(UInt64(bitPattern: blob.size))
            string(blob.facts)
            optionalString(blob.variant)
        }
    }
}

extension JournalRecord {
    /// Decodes what ``ByteWriter/indexedRecord(_:inputs:)`` wrote, with the entry's run and key; `nil` for damage.
    init?(indexed input: inout IndexReader, run: String, key: NodeKey, journal: JournalFile) {
        guard let node = input.string(), let start = input.count().flatMap(Int.init(exactly:)),
            let length = input.count().flatMap(Int.init(exactly:)), start <= Int.max - length,
            let flags = input.count()
        else { return nil }
        var output: OutputRecord?
        if flags & IndexedRecordFlags.output != 0 {
            guard let path = input.string(), let size = input.integer(), let modified = input.integer(),
                let inode = input.integer(),
                let digest = Self.indexedDigest(&input, text: flags & IndexedRecordFlags.textDigest != 0)
            else { return nil }
            output = OutputRecord(
                path: path,
                stamp: FileStamp(size: Int64(bitPattern: size), modified: Int64(bitPattern: modified), inode: inode),
                digest: digest)
        }
        var sourceFile: SourceFileRecord?
        if flags & IndexedRecordFlags.sourceFile != 0 {
            guard let size = input.integer(), let modified = input.integer(), let inode = input.integer(),
                let digest = input.bytes(32)
            else { return nil }
            sourceFile = SourceFileRecord(
                stamp: FileStamp(size: Int64(bitPattern: size), modified: Int64(bitPattern: modified), inode: inode),
                sha256: digest.loadUnaligned(as: NodeKey.self))
        }
        var skipped: String?
        if flags & IndexedRecordFlags.skipCause != 0 {
            guard let cause = input.string() else { return nil }
            skipped = cause
        }
        var blob: BlobReference?
        if flags & IndexedRecordFlags.blob != 0 {
            guard let sha256 = input.string(), let size = input.integer(), let facts = input.string(),
                let hasVariant = input.count(), hasVariant <= 1
            else { return nil }
            var variant: String?
            if hasVariant == 1 {
                guard let text = input.string() else { return nil }
                variant = text
            }
            blob = BlobReference(sha256: sha256, size: Int64(bitPattern: size), facts: facts, variant: variant)
        }
        self.init(
            run: run, node: node, key: key, recordedInputs: .inJournal(journal, start..<(start + length)),
            output: output, blob: blob, sourceFile: sourceFile, skipped: skipped)
    }

    private static func indexedDigest(_ input: inout IndexReader, text: Bool) -> OutputRecord.Digest? {
        if text { return input.string().map(OutputRecord.Digest.text) }
        return input.bytes(32).map { .bytes($0.loadUnaligned(as: NodeKey.self)) }
    }
}
