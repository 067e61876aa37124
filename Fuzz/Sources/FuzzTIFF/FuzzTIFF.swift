// libFuzzer target: bytes → libtiff through TIFFCodec (the header, then a full decode, stopped midway when the last
// byte says so), the TIFF structure reader on its own (every directory found, as EXIF stripping walks them), EXIF
// stripping of every field, and the probe. Every error's message is read in full.
import CFuzzer
import Foundation

@testable import FlowImaging

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTIFF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let buffer = UnsafeRawBufferPointer(start: data, count: size)
    let bytes = [UInt8](buffer)
    // The last byte picks where the decode is stopped (0: never), to reach the cancellation path too.
    let stopAfter = size > 0 ? Int(buffer[size - 1] % 4) : 0
    do throws(ImageCodecError) {
        _ = try TIFFCodec.header(buffer)
        var bands = 0
        let image = try TIFFCodec.decode(buffer, source: "fuzz") { _ in
            bands += 1
            return stopAfter == 0 || bands < stopAfter
        }
        precondition(image.pixels.count == image.width * image.height * 4, "pixel buffer does not match the size")
    } catch {
        precondition(!error.description.isEmpty, "an error without a message")
    }
    if let tiff = TIFFStructure(bytes), let first = tiff.firstIFD,
        let directories = ExifDirectories(tiff, roots: [first])
    {
        precondition(directories.offsets.count <= ExifDirectories.limit, "more directories than the limit")
    }
    if let stripped = ExifField.strip(Set(ExifField.allCases), from: bytes) {
        precondition(stripped.count == bytes.count, "stripping moved the block's bytes")
    }
    _ = try? ImageProbe(Data(buffer))
    return 0
}

// SwiftPM links an executable with `--defsym main=FuzzTIFF_main` (its entry point renamed for testability), which
// hides libFuzzer's own `main`; this one hands over to libFuzzer's driver instead.
@_cdecl("FuzzTIFF_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzTIFF(data, size) }
}
