internal import CFlowShims
import Foundation

/// Reads TIFF through libtiff: strips or tiles, 1 to 16 bits per sample, any photometric libtiff's RGBA interface
/// knows (RGB, grayscale, palette, YCbCr, CMYK), with or without alpha; the first page of a multi-page file.
///
/// 16-bit samples are reduced to 8 bits; the orientation tag is applied as EXIF's is for JPEG, and the ICC profile
/// (tag 34675) is converted to sRGB by ``ImageDecoder``. libtiff reads a band of strips or tiles at a time so that a
/// long decode can stop in between. A single allocation libtiff makes is limited to ``maximumSingleAllocation``.
enum TIFFCodec {
    /// The largest single buffer libtiff may allocate for a file (a strip or a tile, decompressed).
    static let maximumSingleAllocation = 256 << 20

    /// Decodes the first page of a TIFF file.
    /// - Parameter shouldContinue: Asked between bands of rows with the rows done; `false` stops the decode, which
    ///   then throws.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, source: String, shouldContinue: (_ rowsDone: Int) -> Bool = { _ in true }
    ) throws(ImageCodecError) -> Image {
        let file = try open(bytes)
        defer { cflow_tiff_close(file) }
        let info = cflow_tiff_get_info(file)
        let width = Int(info.width)
        let height = Int(info.height)
        try PixelBudget.check(width: width, height: height, making: "the TIFF")
        var status: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, initialized in
            initialized = width * height * 4
            status = readRows(file, into: out, width: width, height: height, shouldContinue: shouldContinue)
        }
        if status == 2 { throw ImageCodecError("the decode was stopped") }
        guard status == 0 else { throw ImageCodecError("cannot read the TIFF (\(message(of: file)))") }
        var image = Image(width: width, height: height, pixels: pixels, source: source)
        image.metadata = ImageMetadata(icc: profile(file), xmp: xmp(file))
        return image.oriented(ExifOrientation(rawValue: Int(info.orientation)) ?? .up)
    }

    /// The first page's header and its ICC profile and XMP, without decoding pixels.
    static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> (cflow_tiff_info, ImageMetadata) {
        let file = try open(bytes)
        defer { cflow_tiff_close(file) }
        return (cflow_tiff_get_info(file), ImageMetadata(icc: profile(file), xmp: xmp(file)))
    }

    private static func open(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> OpaquePointer {
        var message = [CChar](repeating: 0, count: 256)
        guard
            let file = cflow_tiff_open(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, maximumSingleAllocation, &message)
        else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageCodecError("corrupt TIFF header (\(reason))")
        }
        return file
    }

    private static func readRows(
        _ file: OpaquePointer, into out: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int,
        shouldContinue: (_ rowsDone: Int) -> Bool
    ) -> Int32 {
        withoutActuallyEscaping(shouldContinue) { check in
            var context = check
            return withUnsafeMutablePointer(to: &context) { pointer in
                cflow_tiff_read_rgba(
                    file, out.baseAddress, UInt32(width), UInt32(height),
                    { context, rows in
                        guard let check = context?.assumingMemoryBound(to: ((Int) -> Bool).self).pointee else {
                            return 1
                        }
                        return check(rows) ? 1 : 0
                    }, pointer)
            }
        }
    }

    private static func profile(_ file: OpaquePointer) -> [UInt8]? {
        var size: UInt32 = 0
        guard let data = cflow_tiff_icc_profile(file, &size), size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(size)))
    }

    private static func xmp(_ file: OpaquePointer) -> [UInt8]? {
        var size: UInt32 = 0
        guard let data = cflow_tiff_xmp(file, &size), size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(size)))
    }

    private static func message(of file: OpaquePointer) -> String {
        String(cString: cflow_tiff_message(file))
    }
}
