internal import CFlowShims
internal import CPNG
import Foundation

/// Reads and writes PNG through libpng's simplified API (`png_image_*`), which reports errors in
/// `image.message` instead of `longjmp`ing.
///
/// Every PNG flavour — palette (with or without tRNS), gray, gray+alpha, RGB, RGBA, 8 or 16 bits — is read as
/// 8-bit sRGB RGBA. 16-bit files without a gAMA or sRGB chunk are taken as sRGB-encoded, as browsers do
/// (`PNG_IMAGE_FLAG_16BIT_sRGB`), not as linear light. 16-bit interlaced files go through libpng's row API instead
/// (in C, `cflow_png_read_rgba8_via_rows`): libpng 1.6.39's simplified API gets every other row of them wrong when it
/// both de-interlaces and reduces to 8 bits (pnggroup/libpng#853). The orientation is applied, as for JPEG: from an
/// `eXIf` chunk, else from the hex EXIF of a `Raw profile type exif` text chunk (ImageMagick writes those), else from
/// XMP's `tiff:Orientation`.
package enum PNGCodec {
    /// Decodes a PNG file.
    ///
    /// libpng reads the file through a ``CheckedStream`` as it decodes, row by row (pass by pass when interlaced),
    /// so a long decode can stop midway.
    /// - Parameter shouldContinue: Asked before each read of the file with the bytes read so far; `false` stops the
    ///   decode, which then throws.
    package static func decode(
        _ bytes: UnsafeRawBufferPointer, source: String, shouldContinue: (_ bytesDone: Int) -> Bool = { _ in true }
    ) throws(ImageCodecError) -> Image {
        let chunks = PNGChunks(bytes)
        let (result, stopped) = CheckedStream.reading(bytes, shouldContinue: shouldContinue) { file in
            decodePixels(of: bytes, reading: file, chunks: chunks)
        }
        if stopped { throw ImageCodecError("the decode was stopped") }
        let (width, height, pixels) = try result.get()
        var decoded = Image(width: width, height: height, pixels: pixels, source: source)
        decoded.metadata = chunks.metadata
        return decoded.oriented(decoded.metadata.orientation)
    }

    /// The RGBA8 pixels of the PNG `bytes`, read by libpng from `file` (a stream over `bytes`).
    private static func decodePixels(
        of bytes: UnsafeRawBufferPointer, reading file: UnsafeMutablePointer<FILE>?, chunks: PNGChunks
    ) -> Result<(width: Int, height: Int, pixels: [UInt8]), ImageCodecError> {
        guard let file else { return .failure(ImageCodecError("out of memory opening a PNG stream")) }
        var image = png_image()
        image.version = cflow_png_image_version
        defer { png_image_free(&image) }
        guard png_image_begin_read_from_stdio(&image, file) != 0 else {
            return .failure(ImageCodecError("corrupt PNG header (\(message(of: image)))"))
        }
        image.flags |= cflow_png_image_flag_16bit_srgb
        image.format = cflow_png_format_rgba
        let width = Int(image.width)
        let height = Int(image.height)
        guard width > 0, height > 0 else { return .failure(ImageCodecError("PNG has no pixels")) }
        // A header may claim any size: refuse a file too short to hold it before allocating the pixels. Its
        // rows, one filter byte each, are deflated, and deflate compresses at most 1032:1.
        let rowBits = width * bitsPerPixel(ofHeaderIn: bytes)
        let rawSize = height * (1 + (rowBits + 7) / 8)
        guard rawSize <= bytes.count * 1032 + 1024 else {
            return .failure(
                ImageCodecError(
                    "PNG data is truncated (\(bytes.count) bytes cannot hold \(width)×\(height) pixels, "
                        + "\(rawSize) bytes before compression)"))
        }
        do throws(ImageCodecError) {
            try PixelBudget.check(width: width, height: height, making: "the PNG")
        } catch {
            return .failure(error)
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        if chunks.bitDepth == 16 && chunks.isInterlaced {
            // The row API reads the file again from its start.
            rewind(file)
            let status = pixels.withUnsafeMutableBytes { out in
                cflow_png_read_rgba8_via_rows(
                    file, UInt32(width), UInt32(height), out.baseAddress?.assumingMemoryBound(to: UInt8.self))
            }
            if status.status != 0 {
                return .failure(
                    failure(
                        withUnsafeBytes(of: status.message) {
                            String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                        }))
            }
        } else {
            let ok = pixels.withUnsafeMutableBytes { out in
                png_image_finish_read(&image, nil, out.baseAddress, Int32(width * 4), nil)
            }
            guard ok != 0 else { return .failure(failure(message(of: image))) }
        }
        return .success((width, height, pixels))
    }

    /// The error for libpng's message, naming a file cut short as truncated.
    private static func failure(_ text: String) -> ImageCodecError {
        let truncated = ["EOF", "read error", "truncated", "beyond end of data"].contains {
            text.localizedCaseInsensitiveContains($0)
        }
        // libpng's stdio reader says only "Read Error" when the file runs out (a stop is reported before this).
        let detail = text == "Read Error" ? "the file ends before the image does" : text
        return ImageCodecError("\(truncated ? "PNG data is truncated" : "corrupt PNG data") (\(detail))")
    }

    /// Encodes an image as an 8-bit RGBA PNG (RGB when every pixel is opaque).
    package static func encode(_ image: Image) throws(ImageCodecError) -> Data {
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

    /// The PNG file with chunks for `metadata` right after `IHDR`: `iCCP` (the profile, deflated), `eXIf`, and XMP as
    /// `iTXt`.
    ///
    /// With a profile, the `sRGB`, `gAMA` and `cHRM` chunks libpng wrote are dropped: the PNG specification allows
    /// one colour-space description, and an `iCCP` takes precedence over the others in readers anyway.
    static func inserting(_ metadata: ImageMetadata, into png: [UInt8]) -> [UInt8] {
        var chunks: [UInt8] = []
        func append(_ type: String, _ body: [UInt8]) {
            let typed = Array(type.utf8) + body
            let crc = typed.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
            chunks += bigEndian(UInt32(body.count)) + typed + bigEndian(crc)
        }
        // iCCP: profile name (1–79 Latin-1 characters), 0, compression method 0 (zlib), the zlib stream.
        if let icc = metadata.icc, let deflated = zlibCompressed(icc) {
            append("iCCP", Array("ICC profile".utf8) + [0, 0] + deflated)
        }
        if let exif = metadata.exif { append("eXIf", exif) }
        // iTXt: keyword, 0, not compressed, method 0, no language, 0, no translated keyword, 0, text.
        if let xmp = metadata.xmp { append("iTXt", PNGChunks.xmpKeyword + [0, 0, 0, 0] + xmp) }
        let afterHeader = 8 + 8 + 13 + 4
        guard !chunks.isEmpty, png.count > afterHeader else { return png }
        let replaced: Set<String> = metadata.icc == nil ? [] : ["sRGB", "gAMA", "cHRM"]
        var rest: [UInt8] = []
        var at = afterHeader
        while at + 12 <= png.count {
            let length = Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
            let end = at + 12 + length
            guard end <= png.count else { return png }
            if !replaced.contains(String(decoding: png[at + 4..<at + 8], as: UTF8.self)) { rest += png[at..<end] }
            at = end
        }
        return Array(png[..<afterHeader]) + chunks + rest
    }

    /// `bytes` as a zlib stream at the best compression, or `nil` if zlib fails.
    private static func zlibCompressed(_ bytes: [UInt8]) -> [UInt8]? {
        var size = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        guard compress2(&out, &size, bytes, uLong(bytes.count), Z_BEST_COMPRESSION) == Z_OK else { return nil }
        return Array(out.prefix(Int(size)))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
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
