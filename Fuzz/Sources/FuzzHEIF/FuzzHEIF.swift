// libFuzzer target: bytes → libheif (HEIC and AVIF) through HEIFFile and HEIFCodec: opening the file, its size,
// alpha and metadata (ICC, EXIF, XMP), a full decode, the probe, and EXIF stripping of the block it carries. Every
// error's message is read in full, so a message read after libheif freed it is an AddressSanitizer report.
import CFuzzer
import Foundation

@testable import FlowImaging

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let buffer = UnsafeRawBufferPointer(start: data, count: size)
    // The last byte picks the format named in messages; libheif tells HEIC and AVIF apart itself.
    let format: ImageFormat = size > 0 && buffer[size - 1] % 2 == 1 ? .avif : .heic
    do throws(ImageCodecError) {
        let file = try HEIFFile(buffer, format: format)
        _ = (file.size, file.hasAlpha)
        if let exif = file.metadata.exif { _ = ExifField.strip(Set(ExifField.allCases), from: exif) }
        let image = try HEIFCodec.decode(buffer, format: format, source: "fuzz")
        precondition(image.pixels.count == image.width * image.height * 4, "pixel buffer does not match the size")
    } catch {
        precondition(!error.description.isEmpty, "an error without a message")
    }
    _ = try? ImageProbe(Data(buffer))
    return 0
}

// SwiftPM links an executable with `--defsym main=FuzzHEIF_main` (its entry point renamed for testability), which
// hides libFuzzer's own `main`; this one hands over to libFuzzer's driver instead.
@_cdecl("FuzzHEIF_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzHEIF(data, size) }
}
