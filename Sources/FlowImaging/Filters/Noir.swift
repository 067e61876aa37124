import Foundation

/// Black and white with raised contrast: Rec. 709 luma, then a sigmoidal S-curve through a 256-entry table.
///
/// The curve is ImageMagick's and libvips' "sigmoidal contrast" with gain 6 centred at 50 %, rescaled so that
/// 0 stays 0 and 255 stays 255: `s(u) = 1 / (1 + e^(6 (0.5 − u)))`, `out = 255 (s(u) − s(0)) / (s(1) − s(0))`.
package enum Noir {
    /// The contrast gain of the S-curve.
    package static let gain = 6.0
    /// Where the S-curve is centred, as a fraction of full scale.
    package static let midpoint = 0.5

    /// The 256-entry tone curve, rounded to the nearest level.
    package static let curve: [UInt8] = {
        func s(_ u: Double) -> Double { 1 / (1 + exp(gain * (midpoint - u))) }
        let lo = s(0)
        let hi = s(1)
        return (0..<256).map { level in
            let value = 255 * (s(Double(level) / 255) - lo) / (hi - lo)
            return UInt8(min(max(value.rounded(), 0), 255))
        }
    }()

    /// Turns RGBA8 pixels black and white in place; alpha is untouched.
    package static func apply(to pixels: inout [UInt8]) {
        pixels = applied(to: pixels)
    }

    /// The RGBA8 pixels in black and white, in a new buffer (the input usually still belongs to the upstream
    /// node, so writing in place would copy it first anyway); alpha is untouched.
    ///
    /// Luma in 15-bit fixed point (coefficients 6966, 23436, 2366, summing to 2¹⁵), rounded, then the table.
    package static func applied(to pixels: [UInt8]) -> [UInt8] {
        applied(to: pixels) { _ in true } ?? pixels
    }

    /// ``applied(to:)`` in batches, asking `shouldContinue` (with the pixels done) between them; `nil` when it
    /// returned `false`.
    static func applied(to pixels: [UInt8], shouldContinue: (_ pixelsDone: Int) -> Bool) -> [UInt8]? {
        curve.withUnsafeBufferPointer { table in
            PixelBatches.map(pixels, shouldContinue: shouldContinue) { s, d, count in
                guard let lut = table.baseAddress else { return }
                for i in 0..<count {
                    let luma =
                        (6966 &* UInt32(s[4 * i]) &+ 23436 &* UInt32(s[4 * i + 1])
                            &+ 2366 &* UInt32(s[4 * i + 2]) &+ 16384) >> 15
                    let v = lut[Int(luma)]
                    d[4 * i] = v
                    d[4 * i + 1] = v
                    d[4 * i + 2] = v
                    d[4 * i + 3] = s[4 * i + 3]
                }
            }
        }
    }
}
