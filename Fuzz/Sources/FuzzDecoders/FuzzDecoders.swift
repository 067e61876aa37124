// libFuzzer target: bytes → ImageDecoder (JPEG via TurboJPEG, PNG via libpng, WebP, TIFF via libtiff, HEIC and AVIF
// via libheif, camera raw via libraw, EXIF orientation), full and shrink-on-load decodes (a raw file at half size),
// plus the PNG decoder, the EXIF reader, the probe and EXIF stripping on their own.
import CFuzzer
import Foundation

@testable import FlowImaging

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: data, count: size)
    let bytes = Data(buffer)
    _ = ExifOrientation.read(tiff: [UInt8](buffer))
    // The last byte picks a shrink-on-load fraction for JPEG (0 = full decode).
    let selector = size > 0 ? Int(buffer[size - 1] % 4) : 0
    let fraction: Double? = [nil, 0.5, 0.3, 0.1][selector]
    if let image = try? ImageDecoder.decode(bytes, source: "fuzz", keptFraction: { _, _ in fraction }) {
        precondition(image.pixels.count == image.width * image.height * 4, "pixel buffer does not match the size")
    }
    _ = try? ImageProbe(bytes)
    _ = ExifField.strip(Set(ExifField.allCases), from: [UInt8](buffer))
    if size >= 8, buffer[0] == 0x89 {
        _ = try? PNGCodec.decode(UnsafeRawBufferPointer(buffer), source: "fuzz")
    }
    return 0
}

// SwiftPM links an executable with `--defsym main=FuzzDecoders_main` (its entry point renamed for testability),
// which hides libFuzzer's own `main`; this one hands over to libFuzzer's driver instead.
@_cdecl("FuzzDecoders_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzDecoders(data, size) }
}
