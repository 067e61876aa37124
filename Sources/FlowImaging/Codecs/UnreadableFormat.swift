/// Files flowrun recognises but does not decode, named in `decode`'s error instead of their first bytes: other image
/// formats, and what a URL returns instead of an image (an HTML page, a video). A camera's raw file is decoded
/// (``CameraRaw``, ``RawCodec``); ``rawAdvice`` is for one libraw cannot open.
struct UnreadableFormat: Equatable {
    /// What the file is, e.g. "a GIF image".
    var name: String
    /// What to do about it.
    var advice: String

    /// The sentence `decode` fails with.
    var explanation: String { "this is \(name); \(advice)" }

    private static let convert = "convert it to JPEG, PNG, WebP, AVIF or TIFF first (e.g. with a `command`)"
    /// What to do with a raw file libraw cannot open (a camera newer than the library, a damaged file).
    static let rawAdvice =
        "develop it to TIFF or JPEG first (e.g. a `command` running dcraw_emu, darktable-cli or rawtherapee-cli)"

    /// Identifies the first bytes of a file (up to ``CameraRaw/bytesExamined``) that are neither an image flowrun
    /// decodes nor a camera's raw file.
    static func identify(_ head: [UInt8]) -> UnreadableFormat? {
        if let brand = ISOMediaBrand(head), brand.imageFormat == nil, !brand.isCameraRaw {
            return UnreadableFormat(name: brand.name, advice: convert)
        }
        func starts(_ text: String) -> Bool { head.starts(with: Array(text.utf8)) }
        let signatures: [(matches: Bool, name: String)] = [
            (starts("GIF87a") || starts("GIF89a"), "a GIF image"),
            (starts("BM") && head.count >= 14 && head[6...9].allSatisfy { $0 == 0 }, "a BMP image"),
            (starts("8BPS"), "a Photoshop document (PSD)"),
            (head.starts(with: [0xFF, 0x0A]), "a JPEG XL image"),
            (head.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]), "a JPEG XL image"),
            (head.starts(with: [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20]), "a JPEG 2000 image"),
            (head.starts(with: [0xFF, 0x4F, 0xFF, 0x51]), "a JPEG 2000 codestream"),
            (head.starts(with: [0, 0, 1, 0]) && head.count > 6 && head[4] > 0, "a Windows icon (ICO)"),
            (starts("qoif"), "a QOI image"),
            (head.starts(with: [0x76, 0x2F, 0x31, 0x01]), "an OpenEXR image"),
            (starts("#?RADIANCE") || starts("#?RGBE"), "a Radiance HDR image"),
            (starts("%PDF"), "a PDF document"),
            (head.starts(with: [0x49, 0x49, 0x2B, 0]) || head.starts(with: [0x4D, 0x4D, 0, 0x2B]), "a BigTIFF file"),
        ]
        if let known = signatures.first(where: \.matches) { return UnreadableFormat(name: known.name, advice: convert) }
        let text = String(decoding: head.prefix(512), as: UTF8.self).lowercased()
        let trimmed = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if trimmed.hasPrefix("<!doctype html") || trimmed.hasPrefix("<html") {
            return UnreadableFormat(
                name: "an HTML page, not an image", advice: "did the URL answer with an error or a login page?")
        }
        if trimmed.hasPrefix("<svg") || (trimmed.hasPrefix("<?xml") && text.contains("<svg")) {
            return UnreadableFormat(
                name: "an SVG drawing", advice: "rasterise it first (e.g. a `command` running rsvg-convert)")
        }
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") {
            return UnreadableFormat(name: "JSON text, not an image", advice: "did the URL answer with an API error?")
        }
        return nil
    }
}

/// The brands of an ISO base media file (`ftyp` box first): HEIF images (HEIC, AVIF), and what else shares the
/// container (MP4 and QuickTime video, Canon CR3 raw files, which ``CameraRaw`` names).
struct ISOMediaBrand {
    /// The major brand and the compatible ones.
    var brands: [String]

    /// Reads the `ftyp` box at the start; `nil` when there is none.
    init?(_ head: [UInt8]) {
        guard head.count >= 16, Array(head[4..<8]) == Array("ftyp".utf8) else { return nil }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        let end = min(max(size, 16), head.count)
        var brands = [String(decoding: head[8..<12], as: UTF8.self)]
        var at = 16
        while at + 4 <= end {
            brands.append(String(decoding: head[at..<at + 4], as: UTF8.self))
            at += 4
        }
        self.brands = brands
    }

    /// The image format libheif decodes for these brands, or `nil` for other ISO media.
    var imageFormat: ImageFormat? {
        let major = brands[0]
        if ["avif", "avis"].contains(major) { return .avif }
        if ["heic", "heix", "heim", "heis", "hevc", "hevx"].contains(major) { return .heic }
        guard ["mif1", "msf1"].contains(major) else { return nil }
        if brands.contains("avif") || brands.contains("avis") { return .avif }
        return .heic
    }

    /// Whether it is a Canon CR3 raw file.
    var isCameraRaw: Bool { brands[0] == "crx " }

    /// What the file is, for a format flowrun does not decode.
    var name: String {
        switch brands[0] {
        case "qt  ": "a QuickTime video"
        case "M4A ": "an MPEG-4 audio file"
        default: "an MP4 video"
        }
    }
}
