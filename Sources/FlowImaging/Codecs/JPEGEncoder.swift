internal import CTurboJPEG
import Foundation

/// Encodes RGBA8 images as JPEG (baseline or progressive) with 4:2:0 chroma through TurboJPEG (alpha is dropped:
/// ``ImageEncoder`` composites over a background first).
package enum JPEGEncoder {
    /// The pixel layouts ``encode(pixels:width:height:layout:quality:)`` accepts.
    package enum Layout: Sendable {
        case gray, rgb, rgba, cmyk

        var bytesPerPixel: Int { self == .gray ? 1 : self == .rgb ? 3 : 4 }
    }

    /// Encodes an image.
    /// - Parameters:
    ///   - image: The image; a pending colour matrix is applied first.
    ///   - quality: 1…100 (libjpeg's scale).
    /// - Returns: The JPEG file.
    package static func encode(_ image: Image, quality: Int) throws(ImageCodecError) -> Data {
        let pixels = image.pendingColor == nil ? image.pixels : image.materialized().pixels
        return try encode(pixels: pixels, width: image.width, height: image.height, layout: .rgba, quality: quality)
    }

    /// Encodes raw pixels of any layout; grayscale is written as a one-component JPEG, CMYK as YCCK.
    /// - Parameter progressive: Whether to write a progressive JPEG (TurboJPEG's `TJFLAG_PROGRESSIVE`).
    package static func encode(
        pixels: [UInt8], width: Int, height: Int, layout: Layout, quality: Int, progressive: Bool = false
    ) throws(ImageCodecError) -> Data {
        precondition(pixels.count == width * height * layout.bytesPerPixel)
        let handle = try TurboJPEGHandle.compressor()
        let format: TJPF =
            switch layout {
            case .gray: TJPF_GRAY
            case .rgb: TJPF_RGB
            case .rgba: TJPF_RGBA
            case .cmyk: TJPF_CMYK
            }
        let subsampling = layout == .gray ? TJSAMP_GRAY : TJSAMP_420
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer { input in
            tjCompress2(
                handle.raw, input.baseAddress, Int32(width), 0, Int32(height), Int32(format.rawValue),
                &output, &size, Int32(subsampling.rawValue), Int32(min(max(quality, 1), 100)),
                progressive ? TJFLAG_PROGRESSIVE : 0)
        }
        defer { if let output { tjFree(output) } }
        guard status == 0, let output else { throw ImageCodecError("JPEG encoding failed (\(handle.errorMessage))") }
        return Data(bytes: output, count: Int(size))
    }
}
