internal import CWebP
import Foundation

/// Reads and writes WebP through libwebp: lossy (VP8) and lossless (VP8L), with or without alpha, still images.
///
/// Decoding goes to RGBA8 with straight alpha; the metadata chunks of the extended format (`EXIF`, `ICCP`) are read
/// by ``RIFFChunks``, and the EXIF orientation is applied as for JPEG. Encoding keeps alpha in both modes.
package enum WebPCodec {
    /// How many bytes of the file the incremental decoder is given between two `shouldContinue` checks: a few
    /// milliseconds of decoding (lossy WebP compresses a photo about 10:1), and no measurable cost.
    static let bytesPerCheck = 1 << 16

    /// Decodes a WebP file.
    ///
    /// libwebp's incremental decoder (`WebPINewRGB`, `WebPIUpdate`) is given the file ``bytesPerCheck`` bytes
    /// at a time, so that a long decode can stop in between: it decodes what each part allows, as a browser does
    /// with a download.
    /// - Parameter shouldContinue: Asked before each part but the first with the bytes given so far; `false` stops
    ///   the decode, which then throws.
    package static func decode(
        _ bytes: UnsafeRawBufferPointer, source: String, shouldContinue: (_ bytesDone: Int) -> Bool = { _ in true }
    ) throws(ImageCodecError) -> Image {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageCodecError("WebP data is empty")
        }
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(base, bytes.count, &features)
        guard status == VP8_STATUS_OK else { throw failure(status, stage: "header") }
        let width = Int(features.width)
        let height = Int(features.height)
        guard width > 0, height > 0 else { throw ImageCodecError("WebP has no pixels") }
        try PixelBudget.check(width: width, height: height, making: "the WebP")
        guard features.has_animation == 0 else {
            throw ImageCodecError("animated WebP is not supported (decode takes still images)")
        }
        var stopped = false
        // libwebp writes every pixel of a decode that succeeds (a failed one drops the buffer): no zero-filling first,
        // which cost the pages of the whole claimed size before a truncated file failed.
        var decoded = VP8_STATUS_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, initialized in
            initialized = width * height * 4
            decoded = decodeIncrementally(
                bytes, into: out, width: width, stopped: &stopped, shouldContinue: shouldContinue)
        }
        if stopped { throw ImageCodecError("the decode was stopped") }
        guard decoded == VP8_STATUS_OK else { throw failure(decoded, stage: "data") }
        let chunks = RIFFChunks(bytes)
        var image = Image(width: width, height: height, pixels: pixels, source: source)
        image.metadata = chunks.metadata
        return image.oriented(chunks.metadata.orientation)
    }

    /// Feeds the file to libwebp's incremental decoder ``bytesPerCheck`` bytes at a time, writing RGBA into `out`.
    private static func decodeIncrementally(
        _ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>, width: Int, stopped: inout Bool,
        shouldContinue: (_ bytesDone: Int) -> Bool
    ) -> VP8StatusCode {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return VP8_STATUS_NOT_ENOUGH_DATA
        }
        guard let decoder = WebPINewRGB(MODE_RGBA, out.baseAddress, out.count, Int32(width * 4)) else {
            return VP8_STATUS_OUT_OF_MEMORY
        }
        defer { WebPIDelete(decoder) }
        var given = 0
        repeat {
            if given > 0, !shouldContinue(given) {
                stopped = true
                return VP8_STATUS_SUSPENDED
            }
            given = min(bytes.count, given + bytesPerCheck)
            let status = WebPIUpdate(decoder, base, given)
            guard status == VP8_STATUS_SUSPENDED else { return status }
        } while given < bytes.count
        return VP8_STATUS_NOT_ENOUGH_DATA
    }

    /// Encodes an image as WebP.
    /// - Parameters:
    ///   - quality: 1…100, for lossy encoding.
    ///   - lossless: Whether to encode losslessly (VP8L); `quality` then sets the effort.
    ///   - effort: libwebp's `method`, 0 (fastest) to 6 (smallest); `nil` for its default, 4, through the simple
    ///     API the files of earlier versions were made with.
    package static func encode(_ image: Image, quality: Int, lossless: Bool, effort: Int? = nil)
        throws(ImageCodecError) -> Data
    {
        let image = image.materialized()
        if let effort { return try encode(image, quality: quality, lossless: lossless, method: effort) }
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

    /// ``encode(_:quality:lossless:effort:)`` through libwebp's advanced API, which takes a `method`; the other
    /// settings are the simple API's (`WebPConfigPreset` default for lossy, `WebPConfigLosslessPreset`-like for
    /// lossless: `quality` is the effort of the entropy coding there).
    private static func encode(_ image: Image, quality: Int, lossless: Bool, method: Int) throws(ImageCodecError)
        -> Data
    {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw ImageCodecError("libwebp refused its own defaults") }
        config.quality = lossless ? 70 : Float(min(max(quality, 1), 100))
        config.lossless = lossless ? 1 : 0
        config.exact = lossless ? 1 : 0
        config.method = Int32(min(max(method, 0), 6))
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImageCodecError("out of memory encoding WebP") }
        defer { WebPPictureFree(&picture) }
        picture.use_argb = lossless ? 1 : 0
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        let imported = image.pixels.withUnsafeBufferPointer { rgba in
            WebPPictureImportRGBA(&picture, rgba.baseAddress, Int32(image.width * 4))
        }
        guard imported != 0 else {
            throw ImageCodecError("WebP encoding failed (\(image.width)×\(image.height) pixels; WebP allows 16383)")
        }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        picture.writer = WebPMemoryWrite
        try withUnsafeMutablePointer(to: &writer) { (pointer) throws(ImageCodecError) in
            picture.custom_ptr = UnsafeMutableRawPointer(pointer)
            guard WebPEncode(&config, &picture) != 0 else {
                throw ImageCodecError("WebP encoding failed (libwebp error \(picture.error_code.rawValue))")
            }
        }
        return Data(bytes: writer.mem, count: writer.size)
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
