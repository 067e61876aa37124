import Foundation
import OrderedCollections

/// flowrun's one JSON writer: values appended piece by piece into a buffer, which goes to a ``JSONWriterOutput``
/// as it fills — in FlowKit, an atomically written file (`init(path:)`), so a report of a million nodes never
/// exists in memory as one value — or is kept in memory (``init(escaping:)``, for the report's in-memory form and
/// small documents).
///
/// Values are appended with ``value(_:)`` overloads; the caller writes the punctuation between them with
/// ``literal(_:)``, or appends a whole ``JSONValue``. The other streamed document of the package, the `--html`
/// page, writes through ``raw(_:)``.
package struct JSONWriter: ~Copyable {
    /// Which characters a string is written with as escapes, beyond the quote and the backslash.
    package enum Escaping: Sendable {
        /// The C0 controls, as JSON requires. Store keys are made with this rule (``NodeKey``), so it never
        /// changes.
        case controls
        /// Also DEL, the C1 controls and U+2028/U+2029: text that YAML reads as well (YAML counts NEL, LS and PS
        /// as line breaks) or that is printed to a terminal, which may obey C1 controls.
        case controlsAndBreaks
    }

    private let escaping: Escaping
    /// Where full buffers go; `nil` when the document is kept in memory.
    private let output: (any JSONWriterOutput)?
    private var memory: [UInt8] = []
    /// Bytes not yet written: raw memory rather than an `[UInt8]`, whose every append checks uniqueness and
    /// capacity (a million-node report makes some thirty appends per node).
    private let buffer: UnsafeMutableRawBufferPointer
    private var buffered = 0
    private let capacity: Int

    /// Writes into `output`, in pieces of up to a MiB, completed when ``commit()`` is called.
    package init(output: any JSONWriterOutput) {
        escaping = .controls
        self.output = output
        capacity = 1 << 20
        buffer = .allocate(byteCount: capacity, alignment: 1)
    }

    /// Keeps the document in memory, for ``contents()``.
    package init(escaping: Escaping = .controls) {
        self.escaping = escaping
        output = nil
        capacity = 1 << 12
        buffer = .allocate(byteCount: capacity, alignment: 1)
    }

    deinit { buffer.deallocate() }

    /// Writes what is buffered and completes the output (a file is moved into place).
    /// - Throws: What the output threw (in FlowKit, a `FileWriteError`); the output is discarded then.
    package consuming func commit() throws {
        do {
            try flush()
            try output?.commitOutput()
        } catch {
            output?.discardOutput()
            throw error
        }
    }

    /// Drops the document: the output is discarded (a temporary file is removed).
    package consuming func abandon() {
        output?.discardOutput()
    }

    /// The document written, when kept in memory.
    package consuming func contents() -> [UInt8] {
        memory.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<buffered]))
        return memory
    }

    /// Appends raw JSON text (punctuation, or a value already encoded).
    package mutating func raw(_ text: String) throws {
        var text = text
        try text.withUTF8 { try append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends JSON punctuation or a fixed key: a copy of the literal's bytes, with no `String` in between.
    package mutating func literal(_ text: StaticString) throws {
        try append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    package mutating func value(_ text: String) throws {
        var text = text
        let escaping = escaping
        try text.withUTF8 { bytes in
            // Most text (ids, names, statuses) needs no escaping: copy it whole.
            guard !bytes.contains(where: { Self.mayNeedEscaping($0, escaping) }) else {
                return try self.bytes(Self.quoted(bytes, escaping: escaping))
            }
            try append(UInt8(ascii: "\""))
            try append(UnsafeRawBufferPointer(bytes))
            try append(UInt8(ascii: "\""))
        }
    }

    /// Appends bytes made earlier, e.g. with ``quoted(_:escaping:)``.
    package mutating func bytes(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// `text` as a JSON string literal, quotes included: flowrun's one escaper. With `.controlsAndBreaks` it is
    /// also a YAML double-quoted scalar.
    package static func quoted(_ text: String, escaping: Escaping = .controls) -> [UInt8] {
        var text = text
        return text.withUTF8 { quoted($0, escaping: escaping) }
    }

    private static func quoted(_ text: UnsafeBufferPointer<UInt8>, escaping: Escaping) -> [UInt8] {
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        quoted.reserveCapacity(text.count + 2)
        func escape(_ scalar: UInt32) {
            let hex = Array("0123456789abcdef".utf8)
            quoted += Array("\\u".utf8) + [12, 8, 4, 0].map { hex[Int(scalar >> $0 & 0xF)] }
        }
        var index = 0
        while index < text.count {
            let byte = text[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): quoted += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: "\n"): quoted += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): quoted += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): quoted += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: escape(UInt32(byte))
            case _ where escaping == .controls: quoted.append(byte)
            case 0x7F: escape(0x7F)
            // U+0080–U+009F is C2 80–C2 9F in UTF-8; U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
            case 0xC2 where index < text.count && (0x80...0x9F).contains(text[index]):
                escape(UInt32(text[index]))
                index += 1
            case 0xE2 where index + 1 < text.count && text[index] == 0x80 && (0xA8...0xA9).contains(text[index + 1]):
                escape(0x2000 + UInt32(text[index + 1]) - 0x80)
                index += 2
            default: quoted.append(byte)
            }
        }
        quoted.append(UInt8(ascii: "\""))
        return quoted
    }

    /// Whether `byte` is escaped, or starts a character that may be.
    private static func mayNeedEscaping(_ byte: UInt8, _ escaping: Escaping) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
            || (escaping == .controlsAndBreaks && (byte == 0x7F || byte == 0xC2 || byte == 0xE2))
    }

    package mutating func value(_ number: Int) throws {
        if number < 0 { try append(UInt8(ascii: "-")) }
        try appendDigits(of: number.magnitude, width: 1)
    }

    /// A finite number in Swift's shortest round-tripping form (valid JSON), a whole one as an integer (`2`, not
    /// `2.0`); `null` when not finite.
    package mutating func value(_ number: Double) throws {
        guard number.isFinite else { return try literal("null") }
        guard number != number.rounded() || abs(number) >= 1e15 else { return try value(Int(number)) }
        try raw("\(number)")
    }

    /// A time in seconds, to the microsecond (the trace's unit), written without formatting a `Double`.
    package mutating func value(seconds: Double) throws {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return try value(seconds) }
        let micros = Int((seconds * 1e6).rounded())
        if micros < 0 { try append(UInt8(ascii: "-")) }
        try appendDigits(of: micros.magnitude / 1_000_000, width: 1)
        var fraction = micros.magnitude % 1_000_000
        guard fraction != 0 else { return }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        try append(UInt8(ascii: "."))
        try appendDigits(of: fraction, width: digits)
    }

    package mutating func value(_ flag: Bool) throws { try literal(flag ? "true" : "false") }

    /// Appends a whole document: compact, or `pretty`, indented by two spaces a level with one entry a line.
    package mutating func value(_ document: JSONValue, pretty: Bool = false) throws {
        try value(document, indent: pretty ? 0 : nil)
    }

    private mutating func value(_ document: JSONValue, indent: Int?) throws {
        let inner = indent.map { $0 + 1 }
        switch document {
        case .null: try literal("null")
        case .bool(let flag): try value(flag)
        case .integer(let number): try value(number)
        case .number(let number): try value(number)
        case .string(let text): try value(text)
        case .list(let items):
            try literal("[")
            for (position, item) in items.enumerated() {
                if position > 0 { try literal(",") }
                try lineBreak(indent: inner)
                try value(item, indent: inner)
            }
            if !items.isEmpty { try lineBreak(indent: indent) }
            try literal("]")
        case .map(let entries):
            try literal("{")
            for (position, (key, item)) in entries.enumerated() {
                if position > 0 { try literal(",") }
                try lineBreak(indent: inner)
                try value(key)
                try literal(indent == nil ? ":" : ": ")
                try value(item, indent: inner)
            }
            if !entries.isEmpty { try lineBreak(indent: indent) }
            try literal("}")
        }
    }

    /// When pretty-printing (`indent` is not `nil`), a line break and `indent` levels of two spaces.
    private mutating func lineBreak(indent: Int?) throws {
        guard let indent else { return }
        try raw("\n" + String(repeating: "  ", count: indent))
    }

    /// The decimal digits of `number`, zero-padded on the left to at least `width` digits, written in place.
    private mutating func appendDigits(of number: UInt, width: Int) throws {
        var count = 1
        var rest = number / 10
        while rest != 0 {
            count += 1
            rest /= 10
        }
        count = max(count, width)
        if buffered + count > capacity { try flush() }
        rest = number
        for position in stride(from: buffered + count - 1, through: buffered, by: -1) {
            buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        buffered += count
    }

    private mutating func append(_ byte: UInt8) throws {
        if buffered == capacity { try flush() }
        buffer[buffered] = byte
        buffered += 1
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        if buffered + bytes.count > capacity { try flush() }
        guard bytes.count <= capacity else { return try writeAll(bytes) }
        UnsafeMutableRawBufferPointer(rebasing: buffer[buffered...]).copyMemory(from: bytes)
        buffered += bytes.count
    }

    private mutating func flush() throws {
        try writeAll(UnsafeRawBufferPointer(rebasing: buffer[..<buffered]))
        buffered = 0
    }

    private mutating func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        if let output { try output.writeOutput(bytes) } else { memory.append(contentsOf: bytes) }
    }
}

/// Where a ``JSONWriter`` sends its full buffers when the document is not kept in memory, and what becomes of
/// them at the end. FlowKit's `AtomicFile` is one: a temporary file beside the destination, renamed into place.
package protocol JSONWriterOutput: AnyObject {
    /// Appends `bytes` to what was written before.
    func writeOutput(_ bytes: UnsafeRawBufferPointer) throws
    /// Completes the document: nothing is written after it.
    func commitOutput() throws
    /// Drops what was written.
    func discardOutput()
}
