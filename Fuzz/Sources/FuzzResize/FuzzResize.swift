// libFuzzer target: bytes → an image of a size the bytes pick, resized to another size they pick, with any
// filter and fit, possibly as a shrink-on-load image (original size larger than its pixels) and with a pending
// colour matrix, opaque (the fixed-point path) or not (the premultiplied float path) — the resampling kernels
// (portable, or AVX2 in C where the CPU has it) on every shape of window, row length and edge. Checks the output's
// size and that a constant image stays constant (fully transparent where it was: the float path works on
// premultiplied alpha, so no colour is kept there).
import CFuzzer

@testable import FlowImaging

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResize(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard bytes.count >= 8 else { return 0 }
    let width = 1 + Int(bytes[0]) % 97
    let height = 1 + Int(bytes[1]) % 61
    let outWidth = 1 + Int(bytes[2]) % 160
    let outHeight = 1 + Int(bytes[3]) % 120
    let filter = [ResampleFilter.lanczos, .bilinear, .nearest][Int(bytes[4]) % 3]
    let fit = [ResizeSpec.Fit.fill, .contain, .cover][Int(bytes[5]) % 3]
    // Shrink-on-load: the pixels stand for an original up to 8× larger.
    let shrink = 1 + Int(bytes[6]) % 8
    let opaque = bytes[6] & 0x80 != 0
    let flags = bytes[7]
    let payload = bytes.dropFirst(8)
    let constant = flags & 1 != 0 || payload.isEmpty
    let pixels = (0..<width * height * 4).map { i in
        opaque && i % 4 == 3
            ? 255
            : constant
                ? UInt8(truncatingIfNeeded: Int(flags) &* (i % 4 + 1)) : payload[payload.startIndex + i % payload.count]
    }
    var image = Image(
        width: width, height: height, pixels: pixels, source: "fuzz",
        originalSize: shrink > 1 ? (width * shrink, height * shrink) : nil)
    if flags & 2 != 0 { image.pendingColor = .sepia(intensity: Double(flags >> 2) / 63) }
    let out = image.resized(ResizeSpec(size: .box(width: outWidth, height: outHeight, fit: fit), filter: filter))
    precondition(out.pixels.count == out.width * out.height * 4, "pixel buffer does not match the size")
    precondition(out.width >= 1 && out.height >= 1, "empty output")
    if constant && image.pendingColor == nil {
        // A fully transparent image has no colour to keep: resampling works on premultiplied alpha (all zero out),
        // while a size that needs no resampling copies the pixels. It stays fully transparent either way.
        let first = Array(pixels[0..<4])
        for i in stride(from: 0, to: out.pixels.count, by: 4) {
            let pixel = Array(out.pixels[i..<i + 4])
            // fatalError, not precondition: its message survives -O, so the finding says what it saw.
            if first[3] == 0 ? pixel[3] != 0 : pixel != first {
                fatalError("a constant image \(first) became \(pixel) when resized")
            }
        }
    }
    return 0
}

@_cdecl("FuzzResize_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzResize(data, size) }
}
