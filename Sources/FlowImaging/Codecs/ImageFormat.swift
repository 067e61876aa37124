import FlowKit
import Foundation

/// An encoded image format FlowImaging reads; ``WritableFormat`` lists those `write` encodes.
package enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    /// JPEG (JFIF/Exif), through TurboJPEG.
    case jpeg
    /// PNG, through libpng's simplified API.
    case png
    /// WebP (lossy or lossless, alpha kept), through libwebp.
    case webp
    /// AVIF (AV1 in HEIF), through libheif (dav1d to decode, libaom to encode).
    case avif
    /// HEIC (HEVC in HEIF, every iPhone's photos), through libheif; read only.
    case heic
    /// TIFF (strips or tiles, 8 or 16 bits, the first page), through libtiff; read only.
    case tiff
    /// A camera's raw file (DNG, CR2, CR3, NEF, ARW, RAF, ORF, RW2, PEF, SRW: see ``CameraRaw``), developed through
    /// libraw; read only.
    case raw

    /// Whether `write` can encode the format.
    package var isWritable: Bool { WritableFormat(rawValue: rawValue) != nil }

    /// The name people know the format by: "JPEG", "WebP".
    package var displayName: String {
        switch self {
        case .webp: "WebP"
        case .raw: "camera raw"
        default: rawValue.uppercased()
        }
    }

    /// Recognises a format from its magic bytes, never from a name. A camera's raw file, though often TIFF inside, is
    /// ``raw``, not TIFF (its first image is a preview, not the photo).
    package static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        let head = Array(bytes.prefix(64))
        // RAF, ORF, RW2 and CR3 by their signatures; a TIFF-based raw file's tags may lie beyond 64 bytes (below).
        if CameraRaw.identify(head) != nil { return .raw }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head.starts(with: pngSignature) { return .png }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        if let brand = ISOMediaBrand(head) { return brand.imageFormat }
        if head.starts(with: [0x49, 0x49, 0x2A, 0]) || head.starts(with: [0x4D, 0x4D, 0, 0x2A]) {
            return CameraRaw.identify(Array(bytes.prefix(CameraRaw.bytesExamined))) == nil ? .tiff : .raw
        }
        return nil
    }

    /// The error for bytes ``sniff(_:)`` does not decode: the format's name when flowrun knows what they are (a
    /// GIF, PSD, an HTML page…), what is wrong when they look like a damaged header of a format it
    /// reads (a PNG signature whose line-ending bytes were rewritten by a text-mode transfer), else the first bytes.
    static func unrecognised<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageCodecError {
        let head = Array(bytes.prefix(8))
        func hex(_ bytes: ArraySlice<UInt8>) -> String {
            bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
        }
        if head.starts(with: pngSignature.prefix(4)) {
            return ImageCodecError(
                "damaged PNG signature (bytes 5 to 8 are \(hex(head[4...])), not 0D 0A 1A 0A; "
                    + "was the file transferred as text?)")
        }
        if let known = UnreadableFormat.identify(Array(bytes.prefix(CameraRaw.bytesExamined))) {
            return ImageCodecError(known.explanation)
        }
        let readable = allCases.map(\.displayName)
        return ImageCodecError(
            "not an image flowrun reads (\(readable.dropLast().joined(separator: ", ")) or \(readable.last ?? "")); "
                + "it starts with \(hex(head.prefix(4)))")
    }

    /// The eight bytes every PNG file starts with.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The format a file extension names (`jpg`, `jpeg`, `png`, `webp`, `avif`, `heic`, `tif`…, any case), if any.
    package init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg", "jpe", "jfif": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        case "heic", "heif", "hif": self = .heic
        case "tif", "tiff": self = .tiff
        default: return nil
        }
    }
}

/// The formats `write` encodes, as its `format:` parameter takes them.
package enum WritableFormat: String, Sendable, Hashable, CaseIterable, ParameterValue {
    case jpeg, png, webp, avif

    /// The image format it names.
    package var imageFormat: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif: .avif
        }
    }

    /// Their names for messages: "jpeg, png, webp or avif".
    static let list =
        allCases.dropLast().map(\.rawValue).joined(separator: ", ") + " or " + (allCases.last?.rawValue ?? "")
}

/// Why an image could not be decoded or encoded: a message that names the cause, as the codec reported it.
package struct ImageCodecError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, e.g. `JPEG data is truncated (Premature end of JPEG file)`.
    package var message: String

    /// Creates an error.
    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
