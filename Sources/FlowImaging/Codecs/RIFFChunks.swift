/// The metadata chunks of a WebP file's RIFF container (`EXIF`, `ICCP`, `XMP `), walked by hand, never out of bounds.
struct RIFFChunks {
    /// What the chunks hold.
    var metadata = ImageMetadata()

    /// Reads the chunks after the 12-byte `RIFF`…`WEBP` header; stops quietly at the first malformed size.
    init(_ bytes: UnsafeRawBufferPointer) {
        var at = 12
        while at + 8 <= bytes.count {
            let type = String(decoding: bytes[at..<at + 4], as: UTF8.self)
            let size =
                Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            let body = at + 8
            guard body + size <= bytes.count else { return }
            let content = Array(bytes[body..<body + size])
            switch type {
            case "EXIF":
                // Some writers keep JPEG's "Exif\0\0" prefix; the format wants the bare TIFF structure.
                metadata.exif = content.starts(with: ImageMetadata.exifPrefix) ? Array(content.dropFirst(6)) : content
            case "ICCP": metadata.icc = content
            case "XMP ": metadata.xmp = content
            default: break
            }
            at = body + size + (size & 1)  // chunks are padded to an even size
        }
    }
}
