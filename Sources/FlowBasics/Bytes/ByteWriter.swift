/// Appends little-endian integers, counts as LEB128 varints (one byte below 128) and length-prefixed UTF-8
/// strings: the encoding of the store's journal records and indexes.
///
/// Inlinable, as it was inside FlowKit: a record is a few dozen of these calls, and the journal holds one record
/// per node.
package struct ByteWriter {
    /// What was written.
    package var bytes: [UInt8] = []

    /// An empty writer.
    @inlinable package init() {}

    /// Eight bytes, little-endian.
    @inlinable package mutating func integer(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A count or length, as a LEB128 varint.
    @inlinable package mutating func count(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A string's UTF-8 bytes after their count.
    @inlinable package mutating func string(_ text: String) {
        let utf8 = text.utf8
        count(utf8.count)
        // As one buffer where the string has one: appending the `UTF8View` goes element by element (every key
        // encodes a node's parameters).
        if utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: utf8)
        }
    }

    /// A string or nothing: a flag, then the string.
    @inlinable package mutating func optionalString(_ text: String?) {
        count(text == nil ? 0 : 1)
        if let text { string(text) }
    }
}
