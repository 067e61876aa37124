/// The metadata segments of a JPEG file — APP1 Exif, APP1 XMP, APP2 ICC_PROFILE — read and written by hand.
///
/// Reading walks the markers from SOI to SOS and never reads out of bounds; an ICC profile split over several APP2
/// segments is joined in their sequence order, and dropped when a piece is missing. Writing puts the segments
/// right after SOI and the JFIF APP0 segment, where readers look for them.
enum JPEGSegments {
    /// The ICC_PROFILE signature that starts every APP2 profile segment.
    static let iccPrefix = Array("ICC_PROFILE\0".utf8)
    /// A segment's body holds at most 65,533 bytes (its length field counts itself).
    static let maximumBody = 65533

    /// The metadata of a JPEG file.
    static func read(_ bytes: UnsafeRawBufferPointer) -> ImageMetadata {
        var metadata = ImageMetadata()
        var iccPieces: [Int: [UInt8]] = [:]
        var iccCount = 0
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return metadata }
        var i = 2
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else { break }
            let marker = bytes[i + 1]
            if marker == 0xFF {
                i += 1
                continue
            }
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2, i + 2 + length <= bytes.count else { break }
            let body = bytes[(i + 4)..<(i + 2 + length)]
            if marker == 0xE1, metadata.exif == nil, body.starts(with: ImageMetadata.exifPrefix) {
                metadata.exif = Array(body.dropFirst(ImageMetadata.exifPrefix.count))
            } else if marker == 0xE1, metadata.xmp == nil, body.starts(with: ImageMetadata.xmpPrefix) {
                metadata.xmp = Array(body.dropFirst(ImageMetadata.xmpPrefix.count))
            } else if marker == 0xE2, body.count > iccPrefix.count + 2, body.starts(with: iccPrefix) {
                let sequence = Int(body[body.startIndex + iccPrefix.count])
                iccCount = Int(body[body.startIndex + iccPrefix.count + 1])
                iccPieces[sequence] = Array(body.dropFirst(iccPrefix.count + 2))
            }
            i += 2 + length
        }
        if iccCount > 0, (1...iccCount).allSatisfy({ iccPieces[$0] != nil }) {
            metadata.icc = (1...iccCount).flatMap { iccPieces[$0] ?? [] }
        }
        return metadata
    }

    /// The JPEG file with segments for `metadata` inserted after SOI (and JFIF APP0, if first).
    ///
    /// EXIF or XMP larger than one segment is left out (their formats have no standard split in JPEG's APP1).
    static func inserting(_ metadata: ImageMetadata, into jpeg: [UInt8]) -> [UInt8] {
        var segments: [UInt8] = []
        func append(marker: UInt8, _ body: [UInt8]) {
            guard body.count <= maximumBody else { return }
            let length = body.count + 2
            segments += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        }
        if let exif = metadata.exif { append(marker: 0xE1, ImageMetadata.exifPrefix + exif) }
        if let icc = metadata.icc {
            let pieceSize = maximumBody - iccPrefix.count - 2
            let count = (icc.count + pieceSize - 1) / pieceSize
            if count <= 255 {
                for piece in 0..<count {
                    let part = icc[(piece * pieceSize)..<min(icc.count, (piece + 1) * pieceSize)]
                    append(marker: 0xE2, iccPrefix + [UInt8(piece + 1), UInt8(count)] + part)
                }
            }
        }
        if let xmp = metadata.xmp { append(marker: 0xE1, ImageMetadata.xmpPrefix + xmp) }
        guard !segments.isEmpty, jpeg.count > 4 else { return jpeg }
        var at = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        return Array(jpeg[..<at]) + segments + Array(jpeg[at...])
    }
}
