/// Adds metadata chunks to the WebP files libwebp's simple encoder writes, by rebuilding their RIFF container in the
/// extended format: `VP8X` (flags and canvas size), `ICCP`, the image chunks as encoded (`ALPH`, `VP8 `/`VP8L`),
/// then `EXIF` and `XMP `, in the order the format requires.
enum WebPContainer {
    /// The `VP8X` flag bits.
    private static let iccFlag: UInt8 = 0x20
    private static let alphaFlag: UInt8 = 0x10
    private static let exifFlag: UInt8 = 0x08
    private static let xmpFlag: UInt8 = 0x04

    /// The WebP file with `metadata` added; unchanged when there is none, or when the file is not one this
    /// function understands (it then returns it as it is rather than guess).
    static func inserting(
        _ metadata: ImageMetadata, into webp: [UInt8], width: Int, height: Int, hasAlpha: Bool
    ) -> [UInt8] {
        guard metadata != ImageMetadata(), webp.count >= 20, webp.starts(with: Array("RIFF".utf8)),
            Array(webp[8..<12]) == Array("WEBP".utf8)
        else { return webp }
        var imageChunks: [UInt8] = []
        var at = 12
        while at + 8 <= webp.count {
            let type = String(decoding: webp[at..<at + 4], as: UTF8.self)
            let size = Int(webp[at + 4]) | Int(webp[at + 5]) << 8 | Int(webp[at + 6]) << 16 | Int(webp[at + 7]) << 24
            let end = at + 8 + size + (size & 1)
            guard end <= webp.count else { return webp }
            if type != "VP8X" { imageChunks += webp[at..<end] }
            at = end
        }
        var flags: UInt8 = hasAlpha ? alphaFlag : 0
        if metadata.icc != nil { flags |= iccFlag }
        if metadata.exif != nil { flags |= exifFlag }
        if metadata.xmp != nil { flags |= xmpFlag }
        var body: [UInt8] = Array("WEBP".utf8)
        body += chunk("VP8X", [flags, 0, 0, 0] + little24(width - 1) + little24(height - 1))
        if let icc = metadata.icc { body += chunk("ICCP", icc) }
        body += imageChunks
        if let exif = metadata.exif { body += chunk("EXIF", exif) }
        if let xmp = metadata.xmp { body += chunk("XMP ", xmp) }
        return Array("RIFF".utf8) + little32(body.count) + body
    }

    private static func chunk(_ type: String, _ content: [UInt8]) -> [UInt8] {
        Array(type.utf8) + little32(content.count) + content + (content.count & 1 == 1 ? [0] : [])
    }

    private static func little24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }

    private static func little32(_ value: Int) -> [UInt8] {
        little24(value) + [UInt8(value >> 24 & 0xFF)]
    }
}
