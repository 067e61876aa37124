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
    /// The tags that hold the field, wherever they sit: for `gps`, the pointer to its directory.
    var tags: [Int] {
        switch self {
        case .gps: [0x8825]
        case .serial: [0xA431, 0xA435, 0xC62F]
        case .owner: [0xA430]
        case .makernote: [0x927C]
        case .thumbnail: []
        }
    }

    /// EXIF blocks with fields removed: the entry is taken out of its directory (the entries after it move up) and
    /// every byte it pointed at is zeroed, so that nothing of it is left in the file, and the rest keeps its offsets.
    ///
    /// Every directory a reader could find is searched (``ExifDirectories``): a GPS pointer in IFD1 or in the Exif
    /// sub-IFD, or given twice, is removed like the one in IFD0, and every GPS directory is zeroed with its values.
    /// A block whose structure cannot be read, or that still holds what was asked away once edited, is dropped whole
    /// rather than written with it.
    static func strip(_ fields: Set<ExifField>, from exif: [UInt8]) -> [UInt8]? {
        guard !fields.isEmpty else { return exif }
        guard var editor = ExifEditor(exif), let ifd0 = editor.tiff.firstIFD,
            let directories = ExifDirectories(editor.tiff, roots: [ifd0])
        else { return nil }
        if fields.contains(.thumbnail), let ifd1 = editor.tiff.nextIFD(after: ifd0) {
            // The thumbnail is IFD1, the directories chained after it and what they point at, but not what the
            // image itself also uses.
            guard let image = ExifDirectories(editor.tiff, roots: [ifd0], skippingNextOf: ifd0),
                let thumbnail = ExifDirectories(editor.tiff, roots: [ifd1])
            else { return nil }
            for offset in thumbnail.offsets where image.kinds[offset] == nil {
                if thumbnail.kinds[offset] == .image { editor.eraseImageData(ofIFDAt: offset) }
                editor.erase(directoryAt: offset)
            }
            editor.setNextIFD(of: ifd0, to: 0)
        }
        let tags = fields.flatMap(\.tags)
        for offset in directories.offsets where directories.kinds[offset] != .gps {
            for tag in tags { editor.removeAll(tag, fromIFDAt: offset) }
        }
        if fields.contains(.gps) {
            for offset in directories.offsets(of: .gps) { editor.erase(directoryAt: offset) }
        }
        return isFree(of: fields, editor.bytes) ? editor.bytes : nil
    }

    /// Whether the edited block reads as a whole and no directory in it still has an entry of the fields, counting
    /// entries whose values lie outside the block, which the edits cannot see.
    private static func isFree(of fields: Set<ExifField>, _ bytes: [UInt8]) -> Bool {
        guard let tiff = TIFFStructure(bytes), let ifd0 = tiff.firstIFD,
            let directories = ExifDirectories(tiff, roots: [ifd0])
        else { return false }
        if fields.contains(.gps) && !directories.offsets(of: .gps).isEmpty { return false }
        if fields.contains(.thumbnail) && tiff.nextIFD(after: ifd0) != nil { return false }
        let tags = Set(fields.flatMap(\.tags))
        return directories.offsets.allSatisfy { offset in
            directories.kinds[offset] == .gps || tiff.tags(ofIFDAt: offset).allSatisfy { !tags.contains($0) }
        }
    }
}

extension TIFFStructure {
    /// The tags of every entry of the IFD at `offset` that lies inside the bytes, whether or not its values do.
    fileprivate func tags(ofIFDAt offset: Int) -> [Int] {
        guard let count = u16(offset) else { return [] }
        return (0..<count).lazy.map { offset + 2 + $0 * 12 }.prefix { $0 + 12 <= bytes.count }.compactMap(u16)
    }
}
