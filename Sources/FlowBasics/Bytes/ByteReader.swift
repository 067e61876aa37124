/// Reads what ``ByteWriter`` wrote; every read returns `nil` past the end instead of trapping.
///
/// Inlinable, as it was inside FlowKit: loading the journal makes these calls for every field of every record.
package struct ByteReader {
    @usableFromInline var bytes: ArraySlice<UInt8>

    /// A reader of `bytes`, from their start.
    @inlinable package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    /// Whether every byte was read.
    @inlinable package var isAtEnd: Bool { bytes.isEmpty }

    /// Eight bytes, little-endian.
    @inlinable package mutating func integer() -> UInt64? {
        guard bytes.count >= 8 else { return nil }
        var value: UInt64 = 0
        for (shift, byte) in zip(stride(from: 0, to: 64, by: 8), bytes.prefix(8)) {
            value |= UInt64(byte) << UInt64(shift)
        }
        bytes = bytes.dropFirst(8)
        return value
    }

    /// A count, refused when it could not fit in what is left (a damaged length must not allocate gigabytes).
    @inlinable package mutating func count() -> Int? {
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

    /// Where the next read starts, as an index of the bytes read.
    @inlinable package var position: Int { bytes.startIndex }

    /// A length-prefixed string.
    @inlinable package mutating func string() -> String? {
        guard let length = count(), length <= bytes.count else { return nil }
        let text = String(decoding: bytes.prefix(length), as: UTF8.self)
        bytes = bytes.dropFirst(length)
        return text
    }

    /// A string, as `known` when it has the same bytes (no new string made).
    @inlinable package mutating func string(reusing known: String?) -> String? {
        guard let known else { return string() }
        guard let length = count(), length <= bytes.count else { return nil }
        let text =
            bytes.prefix(length).elementsEqual(known.utf8)
            ? known : String(decoding: bytes.prefix(length), as: UTF8.self)
        bytes = bytes.dropFirst(length)
        return text
    }

    /// What `accept` makes of the bytes of a length-prefixed field, read past only when it makes something;
    /// `nil` for damage or a refusal (for a type of FlowKit's own, such as a node key).
    @inlinable package mutating func field<Value>(_ accept: (ArraySlice<UInt8>) -> Value?) -> Value? {
        guard let length = count(), length <= bytes.count, let value = accept(bytes.prefix(length)) else {
            return nil
        }
        bytes = bytes.dropFirst(length)
        return value
    }

    /// Steps over a string; `false` for damage.
    @inlinable package mutating func skipString() -> Bool {
        guard let length = count(), length <= bytes.count else { return false }
        bytes = bytes.dropFirst(length)
        return true
    }

    /// The bytes of a length-prefixed field, without copying them.
    @inlinable package mutating func field() -> ArraySlice<UInt8>? {
        guard let length = count(), length <= bytes.count else { return nil }
        defer { bytes = bytes.dropFirst(length) }
        return bytes.prefix(length)
    }

    /// A length-prefixed byte array.
    @inlinable package mutating func byteArray() -> [UInt8]? {
        guard let length = count(), length <= bytes.count else { return nil }
        let array = Array(bytes.prefix(length))
        bytes = bytes.dropFirst(length)
        return array
    }

    /// `.some(nil)` for an absent string, `nil` for damage.
    @inlinable package mutating func optionalString() -> String?? {
        switch count() {
        case 0?: return .some(nil)
        case 1?: return string().map { .some($0) }
        default: return nil
        }
    }

    /// Steps over an optional string (``optionalString()``); `false` for damage.
    @inlinable package mutating func skipOptionalString() -> Bool {
        switch count() {
        case 0?: return true
        case 1?: return skipString()
        default: return false
        }
    }
}
