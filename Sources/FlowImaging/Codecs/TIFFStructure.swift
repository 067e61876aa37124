/// A read-only view of a TIFF structure — a TIFF file, a camera's raw file, or an EXIF block — in either byte order:
/// its image file directories (IFDs) and their entries, never read out of bounds.
struct TIFFStructure {
    /// The bytes, from the byte-order mark.
    let bytes: [UInt8]
    /// Whether numbers are little-endian (`II`) rather than big-endian (`MM`).
    let isLittleEndian: Bool

    /// One entry of an IFD.
    struct Entry {
        /// The tag, e.g. 0x0112 for the orientation.
        var tag: Int
        /// The field type (3 SHORT, 4 LONG, 5 RATIONAL, 2 ASCII…).
        var type: Int
        /// The number of values.
        var count: Int
        /// Where the entry starts (its 12 bytes).
        var entryOffset: Int
        /// Where its values are: inside the entry when they fit in 4 bytes, else where it points.
        var valueOffset: Int
        /// How many bytes its values take.
        var byteCount: Int
    }

    /// The most entries read from one IFD (real ones have tens; this bounds a damaged count).
    static let maximumEntries = 1000

    /// Reads the header; `nil` when the bytes do not start with `II*\0` or `MM\0*`.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0x49, 0x49, 0x2A, 0): isLittleEndian = true
        case (0x4D, 0x4D, 0, 0x2A): isLittleEndian = false
        default: return nil
        }
        self.bytes = bytes
    }

    func u16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return isLittleEndian ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
    }

    func u32(_ at: Int) -> Int? {
        guard let hi = u16(isLittleEndian ? at + 2 : at), let lo = u16(isLittleEndian ? at : at + 2) else { return nil }
        return hi << 16 | lo
    }

    /// The offset of the first IFD (IFD0).
    var firstIFD: Int? { u32(4) }

    /// The entries of the IFD at `offset`, as many as lie inside the bytes.
    func entries(ofIFDAt offset: Int) -> [Entry] {
        guard let count = u16(offset) else { return [] }
        var entries: [Entry] = []
        for index in 0..<min(count, Self.maximumEntries) {
            let at = offset + 2 + index * 12
            guard let tag = u16(at), let type = u16(at + 2), let valueCount = u32(at + 4) else { break }
            let size = Self.typeSizes[type] ?? 1
            let byteCount = valueCount * size
            let valueOffset = byteCount <= 4 ? at + 8 : (u32(at + 8) ?? -1)
            guard valueOffset >= 0, valueOffset + byteCount <= bytes.count else { continue }
            entries.append(
                Entry(
                    tag: tag, type: type, count: valueCount, entryOffset: at, valueOffset: valueOffset,
                    byteCount: byteCount))
        }
        return entries
    }

    /// The offset of the IFD after the one at `offset` (0 or `nil` when it is the last).
    func nextIFD(after offset: Int) -> Int? {
        guard let count = u16(offset), let next = u32(offset + 2 + count * 12), next != 0 else { return nil }
        return next
    }

    /// The entry with `tag` in the IFD at `offset`.
    func entry(_ tag: Int, inIFDAt offset: Int) -> Entry? {
        entries(ofIFDAt: offset).first { $0.tag == tag }
    }

    /// The first value of a BYTE, SHORT or LONG entry.
    func integer(_ entry: Entry) -> Int? {
        switch entry.type {
        case 1, 7: entry.count > 0 ? Int(bytes[entry.valueOffset]) : nil
        case 3: entry.count > 0 ? u16(entry.valueOffset) : nil
        case 4, 13: entry.count > 0 ? u32(entry.valueOffset) : nil
        default: nil
        }
    }

    /// The text of an ASCII entry, without its terminating zeros and surrounding spaces; `nil` when empty.
    func text(_ entry: Entry) -> String? {
        guard entry.type == 2 || entry.type == 7 else { return nil }
        let raw = bytes[entry.valueOffset..<entry.valueOffset + entry.byteCount].prefix { $0 != 0 }
        let value = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: " ")
        return value.isEmpty ? nil : value
    }

    /// Value `index` of a RATIONAL or SRATIONAL entry; `nil` when its denominator is 0.
    func rational(_ entry: Entry, index: Int = 0) -> Double? {
        guard entry.type == 5 || entry.type == 10, index < entry.count,
            let numerator = u32(entry.valueOffset + index * 8),
            let denominator = u32(entry.valueOffset + index * 8 + 4), denominator != 0
        else { return nil }
        if entry.type == 10 {
            return Double(Int32(truncatingIfNeeded: numerator)) / Double(Int32(truncatingIfNeeded: denominator))
        }
        return Double(numerator) / Double(denominator)
    }

    /// Bytes per value of each field type.
    static let typeSizes: [Int: Int] = [
        1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4,
    ]
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var slice = Substring(self)
        while slice.first == character { slice.removeFirst() }
        while slice.last == character { slice.removeLast() }
        return String(slice)
    }
}
