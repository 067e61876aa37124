import OrderedCollections

/// Reads a JSON list (RFC 8259) into ``JSONValue``s, for the lists a producer prints, saying what is wrong
/// where `JSONDecoder` would not: an integer past 64 bits is refused with its digits (a `Double` would keep 16 of
/// them and change the item), a number past `Double`'s range is named out of range, nesting past ``maxDepth`` names
/// the limit, and the items are counted as they are read, so a list past its limit stops there.
package struct JSONReader {
    /// Why the bytes are not the list.
    package struct Fault: Error, Equatable {
        /// What is wrong, with the byte offset (from 0) where it is.
        package var message: String
        /// Whether the bytes are JSON, but not a list.
        package var isNotAList = false
    }

    /// How deep lists and maps may nest (the list itself is level 1); deeper input is refused, not recursed into.
    package static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The items of the JSON list `input`.
    /// - Parameters:
    ///   - maxItems: The most items the list may have; one more is a fault naming the limit.
    ///   - overLimit: The fault's message for one more, given where that item is (`the one at byte 12`): the
    ///     caller words its limit as it does for its other kinds of list.
    package static func list(
        _ input: some Collection<UInt8>, maxItems: Int, overLimit: (_ place: String) -> String
    ) -> Result<[JSONValue], Fault> {
        let read = { (buffer: UnsafeBufferPointer<UInt8>) -> Result<[JSONValue], Fault> in
            var reader = JSONReader(buffer)
            return Result { () throws(Fault) in try reader.topList(maxItems: maxItems, overLimit: overLimit) }
        }
        if let result = input.withContiguousStorageIfAvailable(read) { return result }
        return Array(input).withUnsafeBufferPointer(read)
    }

    private mutating func topList(maxItems: Int, overLimit: (String) -> String) throws(Fault) -> [JSONValue] {
        skipBlanks()
        guard peek == UInt8(ascii: "[") else {
            _ = try value(depth: 1)
            try end()
            throw Fault(message: "its output is JSON but not a list of items", isNotAList: true)
        }
        var items: [JSONValue] = []
        try sequence(closing: "]") { reader throws(Fault) in
            guard items.count < maxItems else {
                throw Fault(message: overLimit("the one at byte \(reader.at)"))
            }
            items.append(try reader.value(depth: 2))
        }
        try end()
        return items
    }

    private mutating func end() throws(Fault) {
        skipBlanks()
        guard at == bytes.count else { throw invalid("unexpected text after the end of the list") }
    }

    private var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

    private func invalid(_ what: String) -> Fault {
        Fault(message: "its output is not valid JSON: \(what) at byte \(at)")
    }

    private mutating func skipBlanks() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
    }

    /// Reads `[ … ]` or `{ … }` from its opening byte, calling `element` for each element.
    private mutating func sequence(
        closing: Unicode.Scalar, _ element: (inout JSONReader) throws(Fault) -> Void
    ) throws(Fault) {
        at += 1
        skipBlanks()
        if peek == UInt8(ascii: closing) {
            at += 1
            return
        }
        while true {
            skipBlanks()
            try element(&self)
            skipBlanks()
            switch peek {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: closing):
                at += 1
                return
            case nil: throw invalid("the input ends inside a \(closing == "]" ? "list" : "map")")
            default: throw invalid("expected ',' or '\(closing)'")
            }
        }
    }

    private mutating func value(depth: Int) throws(Fault) -> JSONValue {
        skipBlanks()
        guard let byte = peek else { throw invalid("the input ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            guard depth <= Self.maxDepth else {
                throw Fault(
                    message: "its output nests lists and maps deeper than \(Self.maxDepth) levels (at byte \(at))")
            }
            if byte == UInt8(ascii: "[") {
                var items: [JSONValue] = []
                try sequence(closing: "]") { reader throws(Fault) in items.append(try reader.value(depth: depth + 1)) }
                return .list(items)
            }
            var entries = OrderedDictionary<String, JSONValue>()
            try sequence(closing: "}") { reader throws(Fault) in
                guard reader.peek == UInt8(ascii: "\"") else { throw reader.invalid("expected a key in quotes") }
                let key = try reader.string()
                reader.skipBlanks()
                guard reader.peek == UInt8(ascii: ":") else { throw reader.invalid("expected ':' after a key") }
                reader.at += 1
                entries[key] = try reader.value(depth: depth + 1)
            }
            return .map(entries)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw invalid("unexpected character '\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func literal(_ word: String, _ result: JSONValue) throws(Fault) -> JSONValue {
        for expected in word.utf8 {
            guard peek == expected else { throw invalid("unexpected character") }
            at += 1
        }
        return result
    }

    /// A number: an `Int` when it is whole and written without a fraction or an exponent, else a `Double`.
    private mutating func number() throws(Fault) -> JSONValue {
        let start = at
        var isWhole = true
        func digits(_ reader: inout JSONReader) -> Int {
            let first = reader.at
            while let byte = reader.peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { reader.at += 1 }
            return reader.at - first
        }
        if peek == UInt8(ascii: "-") { at += 1 }
        let leading = at
        guard digits(&self) > 0 else { throw invalid("a number needs a digit") }
        guard bytes[leading] != UInt8(ascii: "0") || at - leading == 1 else {
            throw invalid("a number does not start with 0")
        }
        if peek == UInt8(ascii: ".") {
            isWhole = false
            at += 1
            guard digits(&self) > 0 else { throw invalid("a number needs a digit after '.'") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isWhole = false
            at += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { at += 1 }
            guard digits(&self) > 0 else { throw invalid("a number needs a digit in its exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        if isWhole {
            guard let integer = Int(text) else {
                throw Fault(
                    message:
                        "the integer \(Self.shown(text)) at byte \(start) does not fit in 64 bits; write it as a string"
                        + " (in quotes) to keep every digit")
            }
            return .integer(integer)
        }
        guard let double = Double(text), double.isFinite else {
            throw Fault(
                message:
                    "the number \(Self.shown(text)) at byte \(start) is out of range (a double's largest is about 1.8e308)"
            )
        }
        return .number(double)
    }

    /// A number as shown in a message: whole up to 40 characters, else its ends.
    private static func shown(_ text: String) -> String {
        text.count <= 40 ? text : "\(text.prefix(20))…\(text.suffix(10)) (\(text.count) characters)"
    }

    /// A string from its opening quote: escapes decoded, UTF-8 checked, control characters refused.
    private mutating func string() throws(Fault) -> String {
        at += 1
        var scalars = String.UnicodeScalarView()
        var runStart = at
        func flush(_ reader: inout JSONReader) throws(Fault) {
            guard runStart < reader.at else { return }
            guard
                let run = String(
                    validating: UnsafeBufferPointer(rebasing: reader.bytes[runStart..<reader.at]), as: UTF8.self)
            else { throw reader.invalid("a string is not UTF-8") }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while true {
            guard let byte = peek else { throw invalid("the input ends inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                try flush(&self)
                at += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(&self)
                at += 1
                scalars.append(try escape())
                runStart = at
            case 0..<0x20:
                throw invalid("a string holds a control character (byte \(byte)); write it escaped")
            default:
                at += 1
            }
        }
    }

    /// The character an escape stands for, from the byte after its backslash.
    private mutating func escape() throws(Fault) -> Unicode.Scalar {
        guard let byte = peek else { throw invalid("the input ends inside a string") }
        at += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hex4()
            if (0xD800..<0xDC00).contains(unit) {
                guard peek == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else {
                    throw invalid("a \\u escape of a high surrogate is not followed by its low surrogate")
                }
                at += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw invalid("a \\u escape's surrogate pair is broken") }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
            }
            guard let scalar = Unicode.Scalar(unit) else { throw invalid("a \\u escape is a lone surrogate") }
            return scalar
        default: throw invalid("unknown escape '\\\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func hex4() throws(Fault) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = Self.hexDigit(byte) else {
                throw invalid("a \\u escape needs four hexadecimal digits")
            }
            unit = unit << 4 | digit
            at += 1
        }
        return unit
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
