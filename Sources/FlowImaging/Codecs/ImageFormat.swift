import FlowKit
import Foundation

/// An encoded image format FlowImaging reads and writes.
package enum ImageFormat: String, Sendable, Hashable, CaseIterable, ParameterValue {
    /// JPEG (JFIF/Exif), through TurboJPEG.
    case jpeg
    /// PNG, through libpng's simplified API.
    case png
    /// WebP (lossy or lossless, alpha kept), through libwebp.
    case webp

    /// Recognises a format from its magic bytes, never from a name.
    package static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        let head = Array(bytes.prefix(8))
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head == pngSignature { return .png }
        if head.count >= 4, head.prefix(4).elementsEqual("RIFF".utf8),
            Array(bytes.dropFirst(8).prefix(4)) == Array("WEBP".utf8)
        {
            return .webp
        }
        return nil
    }

    /// The error for bytes ``sniff(_:)`` does not recognise, naming what is wrong when they look like a damaged
    /// header of a known format (a PNG signature whose line-ending bytes were rewritten by a text-mode transfer).
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
        return ImageCodecError("not a JPEG, PNG or WebP image (starts with \(hex(head.prefix(4))))")
    }

    /// The eight bytes every PNG file starts with.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The format a file extension names (`jpg`, `jpeg`, `png`, `webp`, any case), if any.
    package init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg", "jpe", "jfif": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        default: return nil
        }
    }
}

/// Why an image could not be decoded or encoded: a message that names the cause, as the codec reported it.
package struct ImageCodecError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, e.g. `JPEG data is truncated (Premature end of JPEG file)`.
    package var message: String

    /// Creates an error.
    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
