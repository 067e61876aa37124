/// The EXIF fields `write` can drop (`strip:`) while keeping the rest of the block (camera, date, lens, exposure).
package enum ExifField: String, Sendable, Hashable, CaseIterable {
    /// The GPS directory: position, altitude, direction, time of fix.
    case gps
    /// The camera body's and the lens's serial numbers (0xA431, 0xA435, and DNG's 0xC62F).
    case serial
    /// The camera owner's name (0xA430).
    case owner
    /// The maker note (0x927C): the manufacturer's private block, which often repeats serial numbers and positions.
    case makernote
    /// The thumbnail (IFD1 and its JPEG).
    case thumbnail
}

extension ExifField {
    /// EXIF blocks with fields removed: the entry is taken out of its directory (the entries after it move up) and
    /// every byte it pointed at is zeroed, so that nothing of it is left in the file, and the rest keeps its offsets.
    ///
    /// A block whose structure cannot be read is dropped whole rather than written with what was asked away.
    static func strip(_ fields: Set<ExifField>, from exif: [UInt8]) -> [UInt8]? {
        guard !fields.isEmpty else { return exif }
        guard var editor = ExifEditor(exif), let ifd0 = editor.tiff.firstIFD else { return nil }
        let exifIFD = editor.tiff.entry(0x8769, inIFDAt: ifd0).flatMap { editor.tiff.integer($0) }
        if fields.contains(.gps), let gps = editor.tiff.entry(0x8825, inIFDAt: ifd0) {
            if let directory = editor.tiff.integer(gps) { editor.erase(directoryAt: directory) }
            editor.remove(0x8825, fromIFDAt: ifd0)
        }
        if fields.contains(.thumbnail), let ifd1 = editor.tiff.nextIFD(after: ifd0) {
            let ifd1Entries = editor.tiff.entries(ofIFDAt: ifd1)
            let start = ifd1Entries.first { $0.tag == 0x0201 }.flatMap { editor.tiff.integer($0) }
            let length = ifd1Entries.first { $0.tag == 0x0202 }.flatMap { editor.tiff.integer($0) }
            if let start, let length { editor.zero(start, count: length) }
            editor.erase(directoryAt: ifd1)
            editor.setNextIFD(of: ifd0, to: 0)
        }
        var removed: [(tag: Int, ifd: Int?)] = []
        if fields.contains(.serial) { removed += [(0xA431, exifIFD), (0xA435, exifIFD), (0xC62F, ifd0)] }
        if fields.contains(.owner) { removed.append((0xA430, exifIFD)) }
        if fields.contains(.makernote) { removed.append((0x927C, exifIFD)) }
        for (tag, ifd) in removed {
            if let ifd { editor.remove(tag, fromIFDAt: ifd) }
        }
        return editor.tiff.bytes
    }
}

/// Edits a TIFF structure in place without moving anything but the entries of the directory edited.
private struct ExifEditor {
    var tiff: TIFFStructure

    init?(_ bytes: [UInt8]) {
        guard let tiff = TIFFStructure(bytes) else { return nil }
        self.tiff = tiff
    }

    /// Zeroes `count` bytes from `start`, clipped to the block.
    mutating func zero(_ start: Int, count: Int) {
        var bytes = tiff.bytes
        let lower = max(0, min(start, bytes.count))
        let upper = max(lower, min(start + max(0, count), bytes.count))
        for index in lower..<upper { bytes[index] = 0 }
        tiff = TIFFStructure(bytes) ?? tiff
    }

    /// Zeroes a whole directory: the values its entries point at, then its entries and count.
    mutating func erase(directoryAt offset: Int) {
        guard let count = tiff.u16(offset) else { return }
        for entry in tiff.entries(ofIFDAt: offset) where entry.byteCount > 4 {
            zero(entry.valueOffset, count: entry.byteCount)
        }
        zero(offset, count: 2 + min(count, TIFFStructure.maximumEntries) * 12 + 4)
    }

    /// Removes the entry `tag` from the directory at `offset`, zeroing what it points at.
    mutating func remove(_ tag: Int, fromIFDAt offset: Int) {
        guard let entry = tiff.entry(tag, inIFDAt: offset), let count = tiff.u16(offset) else { return }
        if entry.byteCount > 4 { zero(entry.valueOffset, count: entry.byteCount) }
        // The entries after it and the next-directory offset move up one entry; the freed last 12 bytes are zeroed.
        let end = offset + 2 + count * 12 + 4
        guard end <= tiff.bytes.count else { return }
        var bytes = tiff.bytes
        bytes.replaceSubrange(entry.entryOffset..<end - 12, with: bytes[(entry.entryOffset + 12)..<end])
        for index in (end - 12)..<end { bytes[index] = 0 }
        let newCount = count - 1
        bytes[offset] = UInt8(tiff.isLittleEndian ? newCount & 0xFF : newCount >> 8)
        bytes[offset + 1] = UInt8(tiff.isLittleEndian ? newCount >> 8 : newCount & 0xFF)
        tiff = TIFFStructure(bytes) ?? tiff
    }

    /// Sets the next-directory offset of the directory at `offset`.
    mutating func setNextIFD(of offset: Int, to next: UInt32) {
        guard let count = tiff.u16(offset), offset + 2 + count * 12 + 4 <= tiff.bytes.count else { return }
        var bytes = tiff.bytes
        let at = offset + 2 + count * 12
        for index in 0..<4 {
            let shift = tiff.isLittleEndian ? index * 8 : (3 - index) * 8
            bytes[at + index] = UInt8(truncatingIfNeeded: next >> UInt32(shift))
        }
        tiff = TIFFStructure(bytes) ?? tiff
    }
}
