/// Edits a TIFF structure in place without moving anything but the entries of the directory edited, so every other
/// offset in the block stays right.
struct ExifEditor {
    /// The block as edited so far.
    private(set) var bytes: [UInt8]
    private let isLittleEndian: Bool

    init?(_ bytes: [UInt8]) {
        guard let tiff = TIFFStructure(bytes) else { return nil }
        self.bytes = bytes
        isLittleEndian = tiff.isLittleEndian
    }

    /// A view of the bytes as edited (even when an edit zeroed the header, which the final check then refuses).
    var tiff: TIFFStructure { TIFFStructure(bytes: bytes, isLittleEndian: isLittleEndian) }

    /// Zeroes `count` bytes from `start`, clipped to the block.
    mutating func zero(_ start: Int, count: Int) {
        let lower = max(0, min(start, bytes.count))
        let upper = max(lower, min(start + max(0, count), bytes.count))
        for index in lower..<upper { bytes[index] = 0 }
    }

    /// Zeroes a whole directory: the values its entries point at, then its entries, count and next offset.
    mutating func erase(directoryAt offset: Int) {
        zero(extents(ofIFDAt: offset))
    }

    /// Zeroes the image data a thumbnail directory points at: a JPEG (0x0201 and its length 0x0202) or strips
    /// (0x0111 and their lengths 0x0117).
    mutating func eraseImageData(ofIFDAt offset: Int) {
        zero(imageData(ofIFDAt: offset))
    }

    /// Zeroes each range, clipped to the block.
    ///
    /// The ranges are worked out before (by the functions below, whose view of the bytes is gone when they return),
    /// so that no view shares the bytes while they change: each edit would copy the whole block.
    private mutating func zero(_ ranges: [(start: Int, count: Int)]) {
        for range in ranges { zero(range.start, count: range.count) }
    }

    /// Where a directory's values, entries, count and next offset lie.
    private func extents(ofIFDAt offset: Int) -> [(start: Int, count: Int)] {
        let view = tiff
        guard let count = view.u16(offset) else { return [] }
        let values = view.entries(ofIFDAt: offset).filter { $0.byteCount > 4 }.map { ($0.valueOffset, $0.byteCount) }
        return values + [(offset, 2 + min(count, TIFFStructure.maximumEntries) * 12 + 4)]
    }

    /// Where the image data of a directory lies.
    private func imageData(ofIFDAt offset: Int) -> [(start: Int, count: Int)] {
        let view = tiff
        let entries = view.entries(ofIFDAt: offset)
        func values(_ tag: Int) -> [Int] {
            entries.first { $0.tag == tag }.map { ExifDirectories.integers($0, in: view) } ?? []
        }
        return Array(zip(values(0x0201), values(0x0202))) + Array(zip(values(0x0111), values(0x0117)))
    }

    /// Removes every entry `tag` from the directory at `offset` (a crafted block can repeat one), zeroing what each
    /// points at.
    mutating func removeAll(_ tag: Int, fromIFDAt offset: Int) {
        // Each removal takes one entry out, so this ends after as many removals as there were entries.
        for _ in tiff.entries(ofIFDAt: offset) where tiff.entry(tag, inIFDAt: offset) != nil {
            remove(tag, fromIFDAt: offset)
        }
    }

    /// Removes the first entry `tag` from the directory at `offset`, zeroing what it points at.
    private mutating func remove(_ tag: Int, fromIFDAt offset: Int) {
        guard let entry = tiff.entry(tag, inIFDAt: offset), let count = tiff.u16(offset) else { return }
        if entry.byteCount > 4 { zero(entry.valueOffset, count: entry.byteCount) }
        // The entries after it and the next-directory offset move up one entry; the freed last 12 bytes are zeroed.
        let end = offset + 2 + count * 12 + 4
        guard end <= bytes.count else {
            // A count past the block's end: the entry cannot be moved out, so it is zeroed where it is.
            zero(entry.entryOffset, count: 12)
            return
        }
        bytes.replaceSubrange(entry.entryOffset..<end - 12, with: bytes[(entry.entryOffset + 12)..<end])
        for index in (end - 12)..<end { bytes[index] = 0 }
        let newCount = count - 1
        bytes[offset] = UInt8(isLittleEndian ? newCount & 0xFF : newCount >> 8)
        bytes[offset + 1] = UInt8(isLittleEndian ? newCount >> 8 : newCount & 0xFF)
    }

    /// Sets the next-directory offset of the directory at `offset`.
    mutating func setNextIFD(of offset: Int, to next: UInt32) {
        guard let count = tiff.u16(offset), offset + 2 + count * 12 + 4 <= bytes.count else { return }
        let at = offset + 2 + count * 12
        for index in 0..<4 {
            let shift = isLittleEndian ? index * 8 : (3 - index) * 8
            bytes[at + index] = UInt8(truncatingIfNeeded: next >> UInt32(shift))
        }
    }
}

extension TIFFStructure {
    /// A view of `bytes` without checking the header again.
    fileprivate init(bytes: [UInt8], isLittleEndian: Bool) {
        self.bytes = bytes
        self.isLittleEndian = isLittleEndian
    }
}
