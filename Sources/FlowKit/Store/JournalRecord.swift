/// One finished node in the store's journal: its key and what went into it, and for a node that writes a file,
/// what it wrote.
package struct JournalRecord: Sendable, Equatable {
    /// The run that finished the node (its start time, ISO 8601).
    package var run: String
    /// The node id.
    package var node: String
    /// The node's key.
    package var key: NodeKey
    /// What went into the key, to explain a later change.
    package var inputs: NodeKeyInputs
    /// The file the node wrote, if it writes one.
    package var output: OutputRecord?
    /// The node's output value, when the store keeps it (`cache: true`, or read across shards).
    package var blob: BlobReference?

    /// Creates a record.
    package init(
        run: String, node: String, key: NodeKey, inputs: NodeKeyInputs, output: OutputRecord? = nil,
        blob: BlobReference? = nil
    ) {
        self.run = run
        self.node = node
        self.key = key
        self.inputs = inputs
        self.output = output
        self.blob = blob
    }
}

/// A file a node wrote, as it was right after the write.
package struct OutputRecord: Sendable, Equatable {
    /// The path, resolved against the workflow's folder.
    package var path: String
    /// Its size, modification time and inode.
    package var stamp: FileStamp
    /// SHA-256 of its content, hex; for an object in a bucket, its `ETag` (the server's digest of it).
    package var sha256: String

    /// Creates an output record.
    package init(path: String, stamp: FileStamp, sha256: String) {
        self.path = path
        self.stamp = stamp
        self.sha256 = sha256
    }
}

extension JournalRecord {
    /// Appends the record's payload to `out`: length-prefixed fields in a fixed order (``ByteWriter``).
    func encode(into out: inout ByteWriter) {
        out.string(run)
        out.string(node)
        out.string(key.hex)
        out.string(inputs.type)
        out.string(inputs.implementation)
        out.count(inputs.options.count)
        for option in inputs.options { out.string(option) }
        out.count(inputs.parameters.count)
        for parameter in inputs.parameters {
            out.string(parameter.name)
            out.string(parameter.value)
        }
        out.count(inputs.upstream.count)
        for link in inputs.upstream {
            out.string(link.node)
            out.string(link.key.hex)
        }
        out.optionalString(inputs.source)
        if let output {
            out.count(1)
            out.string(output.path)
            out.integer(UInt64(bitPattern: output.stamp.size))
            out.integer(UInt64(bitPattern: output.stamp.modified))
            out.integer(output.stamp.inode)
            out.string(output.sha256)
        } else {
            out.count(0)
        }
        // Last and only when present, so records without a blob read as they always did.
        if let blob {
            out.string(blob.sha256)
            out.integer(UInt64(bitPattern: blob.size))
            out.string(blob.facts)
            out.optionalString(blob.variant)
        }
    }

    /// Decodes a payload written by ``encode(into:)``; `nil` when it does not parse to the end.
    init?(decoding bytes: ArraySlice<UInt8>) {
        var input = ByteReader(bytes)
        guard let run = input.string(), let node = input.string(), let key = input.string(),
            let type = input.string(), let implementation = input.string(), let optionCount = input.count()
        else { return nil }
        var options: [String] = []
        for _ in 0..<optionCount {
            guard let option = input.string() else { return nil }
            options.append(option)
        }
        guard let parameterCount = input.count() else { return nil }
        var parameters: [NodeKeyInputs.Parameter] = []
        for _ in 0..<parameterCount {
            guard let name = input.string(), let value = input.string() else { return nil }
            parameters.append(.init(name: name, value: value))
        }
        guard let upstreamCount = input.count() else { return nil }
        var upstream: [NodeKeyInputs.Upstream] = []
        for _ in 0..<upstreamCount {
            guard let id = input.string(), let hex = input.string() else { return nil }
            upstream.append(.init(node: id, key: NodeKey(hex: hex)))
        }
        guard let source = input.optionalString(), let hasOutput = input.count(), hasOutput <= 1 else { return nil }
        var output: OutputRecord?
        if hasOutput == 1 {
            guard let path = input.string(), let size = input.integer(), let modified = input.integer(),
                let inode = input.integer(), let sha256 = input.string()
            else { return nil }
            output = OutputRecord(
                path: path,
                stamp: FileStamp(size: Int64(bitPattern: size), modified: Int64(bitPattern: modified), inode: inode),
                sha256: sha256)
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
            run: run, node: node, key: NodeKey(hex: key),
            inputs: NodeKeyInputs(
                type: type, implementation: implementation, options: options, parameters: parameters,
                upstream: upstream, source: source),
            output: output, blob: blob)
    }
}

/// Appends little-endian integers, counts as LEB128 varints (one byte below 128) and length-prefixed UTF-8
/// strings.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func integer(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func count(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func string(_ text: String) {
        count(text.utf8.count)
        bytes.append(contentsOf: text.utf8)
    }

    /// A string or nothing: a flag, then the string.
    mutating func optionalString(_ text: String?) {
        count(text == nil ? 0 : 1)
        if let text { string(text) }
    }
}

/// Reads what ``ByteWriter`` wrote; every read returns `nil` past the end instead of trapping.
struct ByteReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func integer() -> UInt64? {
        guard bytes.count >= 8 else { return nil }
        var value: UInt64 = 0
        for (shift, byte) in zip(stride(from: 0, to: 64, by: 8), bytes.prefix(8)) {
            value |= UInt64(byte) << UInt64(shift)
        }
        bytes = bytes.dropFirst(8)
        return value
    }

    /// A count, refused when it could not fit in what is left (a damaged length must not allocate gigabytes).
    mutating func count() -> Int? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.first, shift < 64 {
            bytes = bytes.dropFirst()
            value |= UInt64(byte & 0x7F) << shift
            guard byte & 0x80 != 0 else {
                return value <= UInt64(bytes.count) + 1 ? Int(value) : nil
            }
            shift += 7
        }
        return nil
    }

    mutating func string() -> String? {
        guard let length = count(), length <= bytes.count else { return nil }
        let text = String(decoding: bytes.prefix(length), as: UTF8.self)
        bytes = bytes.dropFirst(length)
        return text
    }

    /// A length-prefixed byte array.
    mutating func byteArray() -> [UInt8]? {
        guard let length = count(), length <= bytes.count else { return nil }
        let array = Array(bytes.prefix(length))
        bytes = bytes.dropFirst(length)
        return array
    }

    /// `.some(nil)` for an absent string, `nil` for damage.
    mutating func optionalString() -> String?? {
        switch count() {
        case 0?: return .some(nil)
        case 1?: return string().map { .some($0) }
        default: return nil
        }
    }
}
