internal import CPNG
import Foundation

/// The chunks of a PNG file that its decoder does not interpret for us: walked by hand, never out of bounds.
///
/// libpng's simplified API reads pixels only; the EXIF block (`eXIf`), the colour profile (`iCCP`), XMP (`iTXt`
/// with keyword `XML:com.adobe.xmp`) and the interlace method are taken from the chunks here.
struct PNGChunks {
    /// The `eXIf` chunk's body (a TIFF structure, as in a JPEG's APP1 after "Exif\0\0"), if any.
    var exif: [UInt8]?
    /// The `iCCP` chunk's body (profile name, 0, compression method, zlib stream), if any.
    var iccp: [UInt8]?
    /// The XMP packet of an uncompressed `iTXt` chunk with keyword `XML:com.adobe.xmp`, if any.
    var xmp: [UInt8]?
    /// The text of a `Raw profile type exif` chunk (ImageMagick's: a name line, a length line, the EXIF in hex).
    var rawProfile: [UInt8]?
    /// Whether a `tRNS` chunk makes a colour or palette entries transparent.
    var hasTransparency = false
    /// The `IHDR` bit depth (1, 2, 4, 8 or 16), or 0 if unreadable.
    var bitDepth = 0
    /// Whether `IHDR` says Adam7 interlacing.
    var isInterlaced = false

    /// Reads the chunks before the first `IDAT` (where `eXIf` and `iCCP` must be; a late `eXIf` is ignored, as
    /// browsers do). Stops quietly at the first malformed length.
    init(_ bytes: UnsafeRawBufferPointer) {
        let all = bytes
        var at = 8
        while at + 12 <= all.count {
            let length = Int(all[at]) << 24 | Int(all[at + 1]) << 16 | Int(all[at + 2]) << 8 | Int(all[at + 3])
            let type = String(decoding: all[at + 4..<at + 8], as: UTF8.self)
            let body = at + 8
            guard length >= 0, body + length <= all.count else { return }
            switch type {
            case "IHDR" where length >= 13:
                bitDepth = Int(all[body + 8])
                isInterlaced = all[body + 12] == 1
            case "eXIf": exif = Array(all[body..<body + length])
            case "iCCP": iccp = Array(all[body..<body + length])
            case "iTXt" where all[body..<body + length].starts(with: Self.xmpKeyword):
                xmp = Self.uncompressedText(Array(all[body..<body + length]))
            case "tEXt" where all[body..<body + length].starts(with: Self.rawExifKeyword):
                rawProfile = Array(all[(body + Self.rawExifKeyword.count)..<body + length])
            case "zTXt" where all[body..<body + length].starts(with: Self.rawExifKeyword):
                // Keyword, 0, compression method 0, the zlib stream.
                let stream = Array(all[min(body + length, body + Self.rawExifKeyword.count + 1)..<body + length])
                rawProfile = Self.inflated(stream, limit: Self.maximumRawProfile)
            case "tRNS": hasTransparency = true
            case "IDAT", "IEND": return
            default: break
            }
            at = body + length + 4
        }
    }

    /// The keyword of ImageMagick's EXIF text chunk, with its terminating zero.
    static let rawExifKeyword = Array("Raw profile type exif\0".utf8)
    /// The largest raw profile text inflated: EXIF in JPEG is at most 64 KiB, twice that in hex, with line breaks.
    static let maximumRawProfile = 1 << 18
    /// The keyword of XMP's `iTXt` chunk, with its terminating zero.
    static let xmpKeyword = Array("XML:com.adobe.xmp\0".utf8)
    /// The largest profile inflated (profiles are tens of kilobytes; this bounds a zip bomb).
    static let maximumProfile = 16 << 20

    /// The text of an `iTXt` chunk (keyword, 0, compression flag, method, language, 0, translated keyword, 0,
    /// text), when it is not compressed.
    private static func uncompressedText(_ body: [UInt8]) -> [UInt8]? {
        guard let keywordEnd = body.firstIndex(of: 0), keywordEnd + 2 < body.count, body[keywordEnd + 1] == 0
        else { return nil }
        let rest = body[(keywordEnd + 3)...]
        guard let languageEnd = rest.firstIndex(of: 0),
            let translatedEnd = body[(languageEnd + 1)...].firstIndex(of: 0)
        else { return nil }
        return Array(body[(translatedEnd + 1)...])
    }

    /// What the chunks hold: EXIF from `eXIf`, else from a `Raw profile type exif` text chunk; the profile; XMP.
    var metadata: ImageMetadata {
        ImageMetadata(exif: exif ?? rawProfileExif, icc: profile, xmp: xmp)
    }

    /// The ICC profile of `iCCP` (name, 0, method 0, zlib stream), inflated; `nil` when absent or damaged.
    var profile: [UInt8]? {
        guard let iccp, let nameEnd = iccp.firstIndex(of: 0), nameEnd + 2 <= iccp.count, iccp[nameEnd + 1] == 0
        else { return nil }
        return Self.inflated(Array(iccp[(nameEnd + 2)...]), limit: Self.maximumProfile)
    }

    /// A zlib stream inflated, if it is whole and holds at most `limit` bytes.
    private static func inflated(_ stream: [UInt8], limit: Int) -> [UInt8]? {
        var capacity = 4096
        while capacity <= limit * 4 {
            var size = uLong(min(capacity, limit))
            var out = [UInt8](repeating: 0, count: Int(size))
            let status = uncompress(&out, &size, stream, uLong(stream.count))
            if status == Z_OK { return Array(out.prefix(Int(size))) }
            guard status == Z_BUF_ERROR, capacity < limit else { return nil }
            capacity *= 4
        }
        return nil
    }

    /// The EXIF block (a bare TIFF structure) of a `Raw profile type exif` chunk: its text is "\nexif\n", the length
    /// in bytes, then the bytes in hex over several lines, usually with JPEG's "Exif\0\0" before the TIFF header.
    var rawProfileExif: [UInt8]? {
        guard let rawProfile else { return nil }
        let lines = rawProfile.split(separator: 0x0A, omittingEmptySubsequences: true)
        guard lines.count >= 3, String(decoding: lines[0], as: UTF8.self).trimmingCharacters(in: .whitespaces) == "exif"
        else { return nil }
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in lines.dropFirst(2).joined() {
            let nibble: UInt8
            switch character {
            case 0x30...0x39: nibble = character - 0x30
            case 0x61...0x66: nibble = character - 0x61 + 10
            case 0x41...0x46: nibble = character - 0x41 + 10
            default: continue
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        if bytes.starts(with: ImageMetadata.exifPrefix) { bytes.removeFirst(ImageMetadata.exifPrefix.count) }
        return TIFFStructure(bytes) == nil ? nil : bytes
    }
}
