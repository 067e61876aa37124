internal import CWebP
import Foundation

/// Reads and writes WebP through libwebp: lossy (VP8) and lossless (VP8L), with or without alpha, still images.
///
/// Decoding goes to RGBA8 with straight alpha; the metadata chunks of the extended format (`EXIF`, `ICCP`) are read
/// by ``RIFFChunks``, and the EXIF orientation is applied as for JPEG. Encoding keeps alpha in both modes.
public enum WebPCodec {
    /// Decodes a WebP file.
    public static func decode(_ bytes: UnsafeRawBufferPointer, source: String) throws(ImageCodecError) -> Image {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageCodecError("WebP data is empty")
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw ImageCodecError("cannot start libwebp") }
        let status = WebPGetFeatures(base, bytes.count, &config.input)
        guard status == VP8_STATUS_OK else { throw failure(status, stage: "header") }
        let width = Int(config.input.width)
        let height = Int(config.input.height)
        guard width > 0, height > 0 else { throw ImageCodecError("WebP has no pixels") }
        guard config.input.has_animation == 0 else {
            throw ImageCodecError("animated WebP is not supported (decode takes still images)")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let decoded = pixels.withUnsafeMutableBufferPointer { out -> VP8StatusCode in
            config.output.colorspace = MODE_RGBA
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = out.baseAddress
            config.output.u.RGBA.stride = Int32(width * 4)
            config.output.u.RGBA.size = out.count
            return WebPDecode(base, bytes.count, &config)
        }
        WebPFreeDecBuffer(&config.output)
        guard decoded == VP8_STATUS_OK else { throw failure(decoded, stage: "data") }
        let chunks = RIFFChunks(bytes)
        var image = Image(width: width, height: height, pixels: pixels, source: source)
        image.metadata = chunks.metadata
        return image.oriented(chunks.metadata.orientation)
    }

    /// Encodes an image as WebP.
    /// - Parameters:
    ///   - quality: 1…100, for lossy encoding.
    ///   - lossless: Whether to encode losslessly (VP8L); `quality` then sets the effort.
    public static func encode(_ image: Image, quality: Int, lossless: Bool) throws(ImageCodecError) -> Data {
        let image = image.materialized()
        var output: UnsafeMutablePointer<UInt8>? = nil
        let size = image.pixels.withUnsafeBufferPointer { rgba -> Int in
            let stride = Int32(image.width * 4)
            if lossless {
                return WebPEncodeLosslessRGBA(
                    rgba.baseAddress, Int32(image.width), Int32(image.height), stride, &output)
            }
            return WebPEncodeRGBA(
                rgba.baseAddress, Int32(image.width), Int32(image.height), stride,
                Float(min(max(quality, 1), 100)), &output)
        }
        defer { WebPFree(output) }
        guard size > 0, let output else {
            throw ImageCodecError("WebP encoding failed (\(image.width)×\(image.height) pixels; WebP allows 16383)")
        }
        return Data(bytes: output, count: size)
    }

    /// A failure naming what libwebp found wrong.
    private static func failure(_ status: VP8StatusCode, stage: String) -> ImageCodecError {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: ImageCodecError("WebP data is truncated (not enough data in its \(stage))")
        case VP8_STATUS_UNSUPPORTED_FEATURE: ImageCodecError("WebP uses a feature libwebp does not support")
        case VP8_STATUS_OUT_OF_MEMORY: ImageCodecError("out of memory decoding WebP")
        default: ImageCodecError("corrupt WebP \(stage) (libwebp status \(status.rawValue))")
        }
    }
}
