import FlowImaging
import Foundation
import Testing

/// Inputs found by the libFuzzer targets in Fuzz/ (see Fuzz/README.md), kept so their fixes stay fixed.
@Suite struct FuzzRegressionTests {
    /// Decodes, and measures how long it took.
    static func decode(base64: String) -> (error: ImageCodecError?, seconds: Double) {
        let data = Data(base64Encoded: base64)!
        let start = Date()
        do {
            _ = try ImageDecoder.decode(data, source: "fuzz")
            return (nil, Date().timeIntervalSince(start))
        } catch {
            return (error, Date().timeIntervalSince(start))
        }
    }

    /// 424 bytes: a 16×24 baseline JPEG whose SOF claims 16384×16384. It used to allocate 1 GiB, decode for
    /// 6.5 s into it (TurboJPEG fills what is missing with grey) and only then fail as truncated.
    static let jpegClaimingGiantSize =
        "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCEAAQAADASIAAhEBAxEB/8QAGAAAAwEBAAAAAAAAAAAAAAAAAAYIBQf/xAAmEAACAQMBBwUAAAAAAAAAAAABAgMABAUSBhEhMUFR0RMUImKB/8QAFQEBAQAAAAAAAAAAAAAAAAAAAgH/xAAbEQACAwEBAQAAAAAAAAAAAAABAgADBCERMf/aAAwDAQACEQMRAD8AbsTssqgGVo0H2YCmsbI2q473JntxHy1GQbh+8qjmG7lRhLNe3DofkE9Yjh271tTbbzJjTj5BJLbMQzB3LcunE0X2XfEEq5kHWM73mbTA2+oS5nGKR0NynmipwnvccJNYtAVbdwcA6fNFMaLT32E0oJ//2Q=="

    /// 69 bytes: a PNG whose IHDR claims 16384×16384 RGBA over 12 bytes of IDAT. It used to allocate and clear
    /// 1 GiB, run libpng for 4 s, then fail with "Not enough image data".
    static let pngClaimingGiantSize =
        "iVBORw0KGgoAAAANSUhEUgAAQAAAAEAACAYAAACpyBCEAAAADElEQVR4nGNgoD0AAABkAAGGZDw1AAAAAElFTkSuQmCC"

    @Test func aJPEGHeaderClaimingAGiantSizeFailsBeforeAllocating() {
        let (error, seconds) = Self.decode(base64: Self.jpegClaimingGiantSize)
        #expect(
            error?.message.hasPrefix("JPEG data is truncated (424 bytes cannot hold 16384×16384 pixels") == true,
            "\(String(describing: error))")
        #expect(seconds < 1, "took \(seconds) s")
    }

    @Test func aPNGHeaderClaimingAGiantSizeFailsBeforeAllocating() {
        let (error, seconds) = Self.decode(base64: Self.pngClaimingGiantSize)
        #expect(
            error?.message.hasPrefix("PNG data is truncated (69 bytes cannot hold 16384×16384 pixels") == true,
            "\(String(describing: error))")
        #expect(seconds < 1, "took \(seconds) s")
    }

    /// The bounds must not refuse real files: a large, flat (so highly compressed) image still decodes.
    @Test func largeFlatImagesStillDecode() throws {
        let flat = Image(width: 2048, height: 1536, filledWith: (200, 40, 90, 255))
        let jpeg = try JPEGEncoder.encode(flat, quality: 50)
        #expect(try ImageDecoder.decode(jpeg, source: "").width == 2048)
        let png = try PNGCodec.encode(flat)
        #expect(png.count * 1032 < 2048 * 1536 * 3 * 4, "not compressed enough to test the bound")
        #expect(try ImageDecoder.decode(png, source: "").height == 1536)
    }

    /// Found by libFuzzer (an OOM, after the fix above): 269 bytes whose SOF claims 21272×11587 (246 megapixels,
    /// under the 2²⁸ limit) and whose EXIF says orientation 5. An APP0 segment of length 0 — which libjpeg
    /// skips over — stopped the marker walk, so the file was not known to be Huffman-coded and the size bound
    /// was skipped: 1 GB decoded, then 2 GB more in `oriented` (a [UInt32] and a copy of it). Now a file whose
    /// markers cannot be walked gets the bound, and `oriented` writes straight into the result.
    static let jpegWithABrokenSegmentLength =
        "/9j/4QAiRXhpZgAATU0AKgAAAAgAAQESAAMAAAABAAUAAAAAAAD/4AAA/9sAQwAGBAUGBQQGBgUGBwcGCAoQCgoJCQoUDv+3xTYgewAAFBYWGh0lHyQbIxwWFiAsICMmJykqKRkfLTAtKDAlKCko/9sAQwEHBwcKCAoTCgoTKBoWGigoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCghKCgoKCgoKCg4/8AAEQgtQ1MYAwEiAAIRAQMRAf/EABgAAAMBAQAAAAAAAAAAAAAAAAAAAAIB/8QAGxEAAgMBAQEAAAAAAAAAAAAAAQIAAwQhETH/2gAMAwEAAhEDEQBoMDA="

    @Test func aJPEGWithABrokenSegmentLengthStillGetsTheSizeBound() {
        let (error, seconds) = Self.decode(base64: Self.jpegWithABrokenSegmentLength)
        #expect(
            error?.message.hasPrefix("JPEG data is truncated (269 bytes cannot hold 21272×11587 pixels") == true,
            "\(String(describing: error))")
        #expect(seconds < 1, "took \(seconds) s")
    }
}
