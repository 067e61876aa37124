import Crypto
import FlowBasics

/// One finished node in the store's journal: its key and what went into it, and for a node that writes a file,
/// what it wrote.
package struct JournalRecord: Sendable, Equatable {
    /// The run that finished the node (its start time, ISO 8601).
    package var run: String
    /// The node id.
    package var node: String
    /// The node's key.
    package var key: NodeKey
    /// The file the node wrote, if it writes one.
    package var output: OutputRecord? {
        get { kept?.output }
        set { kept = Kept(output: newValue, blob: blob, sourceFile: sourceFile, skipped: skipped) }
    }
    /// The node's output value, when the store keeps it (`cache: true`, or read across shards).
    package var blob: BlobReference? {
        get { kept?.blob }
        set { kept = Kept(output: output, blob: newValue, sourceFile: sourceFile, skipped: skipped) }
    }
    /// The local file the node read as its source, with its digest (``SourceFileRecord``).
    package var sourceFile: SourceFileRecord? {
        get { kept?.sourceFile }
        set { kept = Kept(output: output, blob: blob, sourceFile: newValue, skipped: skipped) }
    }
    /// Why the node skipped itself, for a node that ran and found nothing to do
    /// (`FlowOperation.Outcome.skipped`): a later run with the same key skips it again, with this cause,
    /// without running what it reads. `nil` for a node that succeeded.
    package var skipped: String? {
        get { kept?.skipped }
        set { kept = Kept(output: output, blob: blob, sourceFile: sourceFile, skipped: newValue) }
    }
    /// What went into the key: decoded, or where it is in the journal.
    let recordedInputs: RecordedInputs
    /// What the node left: `nil` for most records (a node that wrote no file and kept no value), so the record
    /// of such a node stays small (a journal's records are kept one per node while a run decides).
    private var kept: Kept?

    /// The file and the value a node left, the file it read, and why it skipped itself, held apart from its
    /// record.
    private final class Kept: Sendable {
        let output: OutputRecord?
        let sourceFile: SourceFileRecord?
        let skipped: String?
        /// Boxed apart again: most nodes that leave something wrote a file and keep no value, and a box with
        /// room for both would be half again as large (100,000 `write` records hold 16 MB less).
        private let storedBlob: StoredBlob?

        var blob: BlobReference? { storedBlob?.reference }

        init?(output: OutputRecord?, blob: BlobReference?, sourceFile: SourceFileRecord?, skipped: String?) {
            guard output != nil || blob != nil || sourceFile != nil || skipped != nil else { return nil }
            self.output = output
            self.sourceFile = sourceFile
            self.skipped = skipped
            storedBlob = blob.map(StoredBlob.init)
        }

        private final class StoredBlob: Sendable {
            let reference: BlobReference

            init(_ reference: BlobReference) { self.reference = reference }
        }
    }

    /// Creates a record.
    package init(
        run: String, node: String, key: NodeKey, inputs: NodeKeyInputs, output: OutputRecord? = nil,
        blob: BlobReference? = nil, sourceFile: SourceFileRecord? = nil, skipped: String? = nil
    ) {
        self.init(
            run: run, node: node, key: key, recordedInputs: .decoded(inputs), output: output, blob: blob,
            sourceFile: sourceFile, skipped: skipped)
    }

    init(
        run: String, node: String, key: NodeKey, recordedInputs: RecordedInputs, output: OutputRecord?,
        blob: BlobReference?, sourceFile: SourceFileRecord? = nil, skipped: String? = nil
    ) {
        self.run = run
        self.node = node
        self.key = key
        self.recordedInputs = recordedInputs
        kept = Kept(output: output, blob: blob, sourceFile: sourceFile, skipped: skipped)
    }

    /// What went into the key, to explain a later change; `nil` when the journal it was read from cannot be
    /// read again.
    ///
    /// A record read from a journal keeps only where these are: a run that reuses a node compares keys and never
    /// needs them, so only the nodes that changed pay for decoding them.
    package var inputs: NodeKeyInputs? { recordedInputs.decoded }

    package static func == (left: JournalRecord, right: JournalRecord) -> Bool {
        left.run == right.run && left.node == right.node && left.key == right.key && left.output == right.output
            && left.blob == right.blob && left.sourceFile == right.sourceFile && left.skipped == right.skipped
            && left.inputs == right.inputs
    }
}

/// Where a record's ``JournalRecord/inputs`` are.
enum RecordedInputs: Sendable {
    /// In memory (boxed: a record read back, which has none, stays small).
    indirect case decoded(NodeKeyInputs)
    /// In memory, encoded as the journal holds them: what a run keyed (``KeyInputsByNode``).
    case encoded(ArraySlice<UInt8>)
    /// Encoded in the journal, at these bytes (checked when the journal was read).
    case inJournal(JournalFile, Range<Int>)

    /// The inputs field by field; `nil` when the journal they are in cannot be read again.
    var decoded: NodeKeyInputs? {
        switch self {
        case .decoded(let inputs): return inputs
        case .encoded(let bytes): return Self.decode(bytes)
        case .inJournal(let file, let range): return file.read(range).flatMap { Self.decode($0[...]) }
        }
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> NodeKeyInputs? {
        var input = ByteReader(bytes)
        return NodeKeyInputs(decoding: &input).flatMap { input.isAtEnd ? $0 : nil }
    }
}

/// A file a node wrote, as it was right after the write.
package struct OutputRecord: Sendable, Equatable {
    /// The path, resolved against the workflow's folder.
    package var path: String
    /// Its size, modification time and inode.
    package var stamp: FileStamp
    /// SHA-256 of its content, hex; for an object in a bucket, its `ETag` (the server's digest of it).
    package var sha256: String {
        get { digest.text }
        set { digest = Digest(newValue) }
    }
    /// ``sha256`` as its 32 bytes when it is 64 lowercase hex digits (a file's), else as written (an `ETag`): the
    /// records of 100,000 written files keep no string per digest.
    private(set) var digest: Digest

    /// Creates an output record.
    package init(path: String, stamp: FileStamp, sha256: String) {
        self.path = path
        self.stamp = stamp
        digest = Digest(sha256)
    }

    /// Creates an output record of a file just digested: its digest kept as its bytes, never written out as hex.
    package init(path: String, stamp: FileStamp, sha256 digest: SHA256Digest) {
        self.path = path
        self.stamp = stamp
        self.digest = .bytes(NodeKey(digest))
    }

    /// An output record as the journal holds it, its digest read straight from the record's bytes.
    init(path: String, stamp: FileStamp, digest: Digest) {
        self.path = path
        self.stamp = stamp
        self.digest = digest
    }

    enum Digest: Sendable, Equatable {
        /// The bytes of a SHA-256 written as lowercase hex, held as a key holds its digest.
        case bytes(NodeKey)
        case text(String)

        init(_ text: String) {
            self.init(utf8: text.utf8)
        }

        /// From the UTF-8 of the text: a journal's 64 hex digits make no string.
        init(utf8: some Collection<UInt8>) {
            let isLowercaseHex =
                utf8.count == 64 && utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            if isLowercaseHex, let bytes = NodeKey(hexDigits: utf8) {
                self = .bytes(bytes)
            } else {
                self = .text(String(decoding: utf8, as: UTF8.self))
            }
        }

        var text: String {
            switch self {
            case .bytes(let bytes): bytes.hex
            case .text(let text): text
            }
        }
    }
}

extension JournalRecord {
    /// Appends the record's payload to `out`: length-prefixed fields in a fixed order (``ByteWriter``).
    /// - Returns: Where its inputs are in `out`'s bytes, which is where an index finds them in the journal; `nil`,
    ///   with `out` as it was, when the record's inputs are in a journal that cannot be read again.
    func encode(into out: inout ByteWriter) -> Range<Int>? {
        let start = out.bytes.count
        out.string(run)
        out.string(node)
        out.key(key)
        let inputsStart = out.bytes.count
        switch recordedInputs {
        case .decoded(let inputs): inputs.encode(into: &out)
        case .encoded(let bytes): out.bytes.append(contentsOf: bytes)
        case .inJournal(let file, let range):
            guard let bytes = file.read(range) else {
                out.bytes.removeSubrange(start...)
                return nil
            }
            out.bytes.append(contentsOf: bytes)
        }
        let inputs = inputsStart..<out.bytes.count
        // A set of flags, once a count of outputs (0 or 1): journals written before sources were recorded read
        // as they always did.
        out.count(
            (output == nil ? 0 : Self.hasOutput) | (sourceFile == nil ? 0 : Self.hasSourceFile)
                | (skipped == nil ? 0 : Self.hasSkipCause))
        if let output {
            out.string(output.path)
            out.integer(UInt64(bitPattern: output.stamp.size))
            out.integer(UInt64(bitPattern: output.stamp.modified))
            out.integer(output.stamp.inode)
            switch output.digest {
            // The same bytes as its text, made in place: a written file's record makes no string of its digest.
            case .bytes(let digest): out.key(digest)
            case .text(let text): out.string(text)
            }
        }
        if let sourceFile {
            out.integer(UInt64(bitPattern: sourceFile.stamp.size))
            out.integer(UInt64(bitPattern: sourceFile.stamp.modified))
            out.integer(sourceFile.stamp.inode)
            out.key(sourceFile.sha256)
        }
        if let skipped { out.string(skipped) }
        // Last and only when present, so records without a blob read as they always did.
        if let blob {
            out.string(blob.sha256)
            out.integer(UInt64(bitPattern: blob.size))
            out.string(blob.facts)
            out.optionalString(blob.variant)
        }
        return inputs
    }

    /// Decodes a payload written by ``encode(into:)``; `nil` when it does not parse to the end.
    /// - Parameters:
    ///   - bytes: The payload.
    ///   - journal: The journal the payload was read from, whose byte `offset` is the payload's first: the
    ///     record then keeps where its inputs are, and decodes them only when asked. `nil` decodes them now.
    ///   - run: A run id already read, taken instead of a new string when equal: a journal's records share few.
    init?(
        decoding bytes: ArraySlice<UInt8>, journal: JournalFile? = nil, offset: Int = 0, run previousRun: String? = nil
    ) {
        var input = ByteReader(bytes)
        guard let run = input.string(reusing: previousRun), let node = input.string(), let key = input.key()
        else { return nil }
        let recordedInputs: RecordedInputs
        let inputsStart = input.position
        if let journal {
            guard NodeKeyInputs.skip(&input) else { return nil }
            let range = (inputsStart - bytes.startIndex + offset)..<(input.position - bytes.startIndex + offset)
            recordedInputs = .inJournal(journal, range)
        } else {
            guard let inputs = NodeKeyInputs(decoding: &input) else { return nil }
            recordedInputs = .decoded(inputs)
        }
        guard let flags = input.count(), flags <= Self.hasOutput | Self.hasSourceFile | Self.hasSkipCause else {
            return nil
        }
        var output: OutputRecord?
        if flags & Self.hasOutput != 0 {
            guard let path = input.string(), let size = input.integer(), let modified = input.integer(),
                let inode = input.integer(), let digest = input.field().map(OutputRecord.Digest.init(utf8:))
            else { return nil }
            output = OutputRecord(
                path: path,
                stamp: FileStamp(size: Int64(bitPattern: size), modified: Int64(bitPattern: modified), inode: inode),
                digest: digest)
        }
        var sourceFile: SourceFileRecord?
        if flags & Self.hasSourceFile != 0 {
            guard let size = input.integer(), let modified = input.integer(), let inode = input.integer(),
                let digest = input.key()
            else { return nil }
            sourceFile = SourceFileRecord(
                stamp: FileStamp(size: Int64(bitPattern: size), modified: Int64(bitPattern: modified), inode: inode),
                sha256: digest)
        }
        var skipped: String?
        if flags & Self.hasSkipCause != 0 {
            guard let cause = input.string() else { return nil }
            skipped = cause
        }
        var blob: BlobReference?
        if !input.isAtEnd {
            guard let sha256 = input.string(), let size = input.integer(), let facts = input.string(),
                let variant = input.optionalString()
            else { return nil }
            blob = BlobReference(sha256: sha256, size: Int64(bitPattern: size), facts: facts, variant: variant)
        }
        guard input.isAtEnd else { return nil }
        self.init(
            run: run, node: node, key: key, recordedInputs: recordedInputs, output: output, blob: blob,
            sourceFile: sourceFile, skipped: skipped)
    }

    /// The flags that say what a record holds after its inputs.
    private static let hasOutput = 1
    private static let hasSourceFile = 2
    private static let hasSkipCause = 4
}

extension NodeKeyInputs {
    /// Appends the fields in the journal's order.
    func encode(into out: inout ByteWriter) {
        Self.encode(
            type: type, implementation: implementation, options: options, parameters: parameters, upstream: upstream,
            source: source, into: &out)
    }

    /// Appends the fields of inputs made of these, in the journal's order, without making them.
    static func encode(
        type: String, implementation: String, options: [String], parameters: [Parameter],
        upstream: some Collection<Upstream>, source: String?, into out: inout ByteWriter
    ) {
        encodeTaskFields(
            type: type, implementation: implementation, options: options, parameters: parameters, into: &out)
        encode(upstream: upstream, source: source, into: &out)
    }

    /// Appends the fields of inputs whose task fields are already encoded (``encodeTaskFields(type:implementation:options:parameters:into:)``),
    /// in the journal's order.
    static func encode(
        taskFields: [UInt8], upstream: some Collection<Upstream>, source: String?, into out: inout ByteWriter
    ) {
        out.bytes.append(contentsOf: taskFields)
        encode(upstream: upstream, source: source, into: &out)
    }

    private static func encode(upstream: some Collection<Upstream>, source: String?, into out: inout ByteWriter) {
        out.count(upstream.count)
        for link in upstream {
            out.string(link.node)
            out.key(link.key)
        }
        out.optionalString(source)
    }

    /// Reads what ``encode(into:)`` wrote; `nil` for damage.
    init?(decoding input: inout ByteReader) {
        guard let type = input.string(), let implementation = input.string(), let optionCount = input.count()
        else { return nil }
        var options: [String] = []
        for _ in 0..<optionCount {
            guard let option = input.string() else { return nil }
            options.append(option)
        }
        guard let parameterCount = input.count() else { return nil }
        var parameters: [Parameter] = []
        for _ in 0..<parameterCount {
            guard let name = input.string(), let value = input.string() else { return nil }
            parameters.append(.init(name: name, value: value))
        }
        guard let upstreamCount = input.count() else { return nil }
        var upstream: [Upstream] = []
        for _ in 0..<upstreamCount {
            guard let id = input.string(), let key = input.key() else { return nil }
            upstream.append(.init(node: id, key: key))
        }
        guard let source = input.optionalString() else { return nil }
        self.init(
            type: type, implementation: implementation, options: options, parameters: parameters, upstream: upstream,
            source: source)
    }

    /// Steps over what ``encode(into:)`` wrote without making a string of it; `false` for damage.
    static func skip(_ input: inout ByteReader) -> Bool {
        guard input.skipString(), input.skipString(), let optionCount = input.count() else { return false }
        for _ in 0..<optionCount where !input.skipString() { return false }
        guard let parameterCount = input.count() else { return false }
        for _ in 0..<parameterCount where !(input.skipString() && input.skipString()) { return false }
        guard let upstreamCount = input.count() else { return false }
        for _ in 0..<upstreamCount where !(input.skipString() && input.skipString()) { return false }
        switch input.count() {
        case 0?: return true
        case 1?: return input.skipString()
        default: return false
        }
    }
}
