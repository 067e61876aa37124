import Foundation

/// Black and white with raised contrast: Rec. 709 luma, then a sigmoidal S-curve through a 256-entry table.
///
/// The curve is ImageMagick's and libvips' "sigmoidal contrast" with gain 6 centred at 50 %, rescaled so that
/// 0 stays 0 and 255 stays 255: `s(u) = 1 / (1 + e^(6 (0.5 − u)))`, `out = 255 (s(u) − s(0)) / (s(1) − s(0))`.
public enum Noir {
    /// The contrast gain of the S-curve.
    public static let gain = 6.0
    /// Where the S-curve is centred, as a fraction of full scale.
    public static let midpoint = 0.5

    /// The 256-entry tone curve, rounded to the nearest level.
    public static let curve: [UInt8] = {
        func s(_ u: Double) -> Double { 1 / (1 + exp(gain * (midpoint - u))) }
        let lo = s(0), hi = s(1)
        return (0..<256).map { level in
            let value = 255 * (s(Double(level) / 255) - lo) / (hi - lo)
            return UInt8(min(max(value.rounded(), 0), 255))
        }
    }()

    /// Turns RGBA8 pixels black and white in place; alpha is untouched.
    ///
    /// Luma in 15-bit fixed point (coefficients 6966, 23436, 2366, summing to 2¹⁵), rounded, then the table.
    public static func apply(to pixels: inout [UInt8]) {
        curve.withUnsafeBufferPointer { table in
            pixels.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress, let lut = table.baseAddress else { return }
                var p = base
                let end = base + buffer.count
                while p < end {
                    let luma = (6966 &* UInt32(p[0]) &+ 23436 &* UInt32(p[1]) &+ 2366 &* UInt32(p[2]) &+ 16384) >> 15
                    let v = lut[Int(luma)]
                    p[0] = v
                    p[1] = v
                    p[2] = v
                    p += 4
                }
            }
        }
    }
}
