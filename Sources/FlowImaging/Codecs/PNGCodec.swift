internal import CPNG
import Foundation

/// Reads and writes PNG through libpng's simplified API (`png_image_*`), which reports errors in
/// `image.message` instead of `longjmp`ing, so no C shim is needed.
///
/// Every PNG flavour — palette (with or without tRNS), gray, gray+alpha, RGB, RGBA, 8 or 16 bits — is read as
/// 8-bit sRGB RGBA. 16-bit files without a gAMA or sRGB chunk are taken as sRGB-encoded, as browsers do
/// (`PNG_IMAGE_FLAG_16BIT_sRGB`), not as linear light.
public enum PNGCodec {
    /// Decodes a PNG file.
    public static func decode(_ bytes: UnsafeRawBufferPointer, source: String) throws(ImageCodecError) -> Image {
        var image = png_image()
        image.version = cflow_png_image_version
        defer { png_image_free(&image) }
        guard png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count) != 0 else {
            throw ImageCodecError("corrupt PNG header (\(message(of: image)))")
        }
        image.flags |= cflow_png_image_flag_16bit_srgb
        image.format = cflow_png_format_rgba
        let width = Int(image.width)
        let height = Int(image.height)
        guard width > 0, height > 0 else { throw ImageCodecError("PNG has no pixels") }
        guard width * height <= 1 << 28 else { throw ImageCodecError("PNG is too large (\(width)×\(height))") }
        // A header may claim any size: refuse a file too short to hold it before allocating the pixels. Its
        // rows, one filter byte each, are deflated, and deflate compresses at most 1032:1.
        let rowBits = width * bitsPerPixel(ofHeaderIn: bytes)
        let rawSize = height * (1 + (rowBits + 7) / 8)
        guard rawSize <= bytes.count * 1032 + 1024 else {
            throw ImageCodecError(
                "PNG data is truncated (\(bytes.count) bytes cannot hold \(width)×\(height) pixels, "
                    + "\(rawSize) bytes before compression)")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let ok = pixels.withUnsafeMutableBytes { out in
            png_image_finish_read(&image, nil, out.baseAddress, Int32(width * 4), nil)
        }
        guard ok != 0 else {
            let text = message(of: image)
            let cause =
                text.localizedCaseInsensitiveContains("EOF") || text.contains("Read Error")
                    || text.localizedCaseInsensitiveContains("truncated") ? "PNG data is truncated" : "corrupt PNG data"
            throw ImageCodecError("\(cause) (\(text))")
        }
        return Image(width: width, height: height, pixels: pixels, source: source)
    }

    /// Encodes an image as an 8-bit RGBA PNG (RGB when every pixel is opaque).
    public static func encode(_ image: Image) throws(ImageCodecError) -> Data {
        let image = image.materialized()
        if image.isOpaque {
            var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
            image.pixels.withUnsafeBufferPointer { src in
                for i in 0..<(image.width * image.height) {
                    rgb[i * 3] = src[i * 4]
                    rgb[i * 3 + 1] = src[i * 4 + 1]
                    rgb[i * 3 + 2] = src[i * 4 + 2]
                }
            }
            return try encode(pixels: rgb, width: image.width, height: image.height, channels: 3)
        }
        return try encode(pixels: image.pixels, width: image.width, height: image.height, channels: 4)
    }

    /// Encodes 8-bit pixels with 1 (gray), 2 (gray+alpha), 3 (RGB) or 4 (RGBA) channels.
    package static func encode(pixels: [UInt8], width: Int, height: Int, channels: Int) throws(ImageCodecError)
        -> Data
    {
        precondition(pixels.count == width * height * channels)
        var image = png_image()
        image.version = cflow_png_image_version
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format =
            [
                cflow_png_format_gray, cflow_png_format_ga, cflow_png_format_rgb,
                cflow_png_format_rgba,
            ][channels - 1]
        defer { png_image_free(&image) }
        var size: png_alloc_size_t = 0
        let stride = Int32(width * channels)
        let sized = pixels.withUnsafeBytes {
            png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, stride, nil)
        }
        guard sized != 0 else { throw ImageCodecError("PNG encoding failed (\(message(of: image)))") }
        var output = Data(count: Int(size))
        let ok = output.withUnsafeMutableBytes { out in
            pixels.withUnsafeBytes {
                png_image_write_to_memory(&image, out.baseAddress, &size, 0, $0.baseAddress, stride, nil)
            }
        }
        guard ok != 0 else { throw ImageCodecError("PNG encoding failed (\(message(of: image)))") }
        return output.prefix(Int(size))
    }

    /// Bits per pixel from the IHDR chunk (bit depth × channels of its colour type); 1 if it cannot be read,
    /// the smallest a PNG has. `png_image_begin_read_from_memory` checked the signature and that IHDR comes first.
    private static func bitsPerPixel(ofHeaderIn bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count >= 26 else { return 1 }
        let depth = Int(bytes[24])
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(bytes[25])] ?? 1
        return max(1, depth * channels)
    }

    private static func message(of image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
