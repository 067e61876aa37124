import Foundation

/// A colour that may be transparent, as `rotate`'s and `overlay`'s parameters name it: what ``RGBColor`` reads,
/// or `transparent`.
package struct RGBAColor: Sendable, Hashable {
    /// The red, green, blue and alpha levels, 0…255, not premultiplied.
    package var rgba: SIMD4<UInt8>

    /// Parses `transparent` or anything ``RGBColor`` reads (opaque); `nil` otherwise.
    package init?(_ text: String) {
        if text.lowercased() == "transparent" {
            rgba = .zero
        } else if let colour = RGBColor(text) {
            rgba = SIMD4(colour.red, colour.green, colour.blue, 255)
        } else {
            return nil
        }
    }
}

/// Rotation by any angle: each output pixel samples the source bilinearly at the point that lands on its centre,
/// on premultiplied alpha (so the background does not darken or tint the picture's edges), with everything outside
/// the source reading as the background. The output is the bounding box of the turned picture.
enum Rotation {
    /// The bounding box of a `width` × `height` picture turned by `degrees`: each side rounded up, less a
    /// thousandth so that float noise does not add a row.
    static func boundingSize(width: Int, height: Int, degrees: Double) -> (width: Int, height: Int) {
        let radians = degrees * .pi / 180
        let (c, s) = (abs(cos(radians)), abs(sin(radians)))
        let w = Double(width) * c + Double(height) * s
        let h = Double(width) * s + Double(height) * c
        return (max(1, Int((w - 0.001).rounded(.up))), max(1, Int((h - 0.001).rounded(.up))))
    }

    /// `image` turned `degrees` clockwise onto `background`; `nil` when `shouldContinue` stopped it (asked every
    /// 16 rows).
    static func rotated(
        _ image: Image, degrees: Double, background: RGBAColor, shouldContinue: (Int) -> Bool
    ) -> Image? {
        let (w, h) = (image.width, image.height)
        let size = boundingSize(width: w, height: h, degrees: degrees)
        let radians = degrees * .pi / 180
        let (c, s) = (Float(cos(radians)), Float(sin(radians)))
        let alpha = Float(background.rgba.w) / 255
        let fill = SIMD4<Float>(
            Float(background.rgba.x) * alpha, Float(background.rgba.y) * alpha, Float(background.rgba.z) * alpha,
            Float(background.rgba.w))
        let (outCentreX, outCentreY) = (Float(size.width) / 2, Float(size.height) / 2)
        let (inCentreX, inCentreY) = (Float(w) / 2, Float(h) / 2)
        var completed = true
        let pixels = [UInt8](unsafeUninitializedCapacity: size.width * size.height * 4) { out, initialized in
            image.pixels.withUnsafeBufferPointer { source in
                // The source pixel (premultiplied), or the background outside the picture.
                func pixel(_ x: Int, _ y: Int) -> SIMD4<Float> {
                    guard x >= 0, y >= 0, x < w, y < h else { return fill }
                    let i = (y * w + x) * 4
                    let a = Float(source[i + 3])
                    let k = a / 255
                    return SIMD4(Float(source[i]) * k, Float(source[i + 1]) * k, Float(source[i + 2]) * k, a)
                }
                for oy in 0..<size.height {
                    if oy % 16 == 15, !shouldContinue(oy) {
                        completed = false
                        return
                    }
                    let dy = Float(oy) + 0.5 - outCentreY
                    for ox in 0..<size.width {
                        let dx = Float(ox) + 0.5 - outCentreX
                        // The inverse rotation of the output pixel's centre, to source pixel coordinates.
                        let sx = c * dx + s * dy + inCentreX - 0.5
                        let sy = -s * dx + c * dy + inCentreY - 0.5
                        let x0 = Int(sx.rounded(.down))
                        let y0 = Int(sy.rounded(.down))
                        let fx = sx - Float(x0)
                        let fy = sy - Float(y0)
                        let top = pixel(x0, y0) * (1 - fx) + pixel(x0 + 1, y0) * fx
                        let bottom = pixel(x0, y0 + 1) * (1 - fx) + pixel(x0 + 1, y0 + 1) * fx
                        let value = top * (1 - fy) + bottom * fy
                        let o = (oy * size.width + ox) * 4
                        let a = value.w
                        let k: Float = a > 0 ? 255 / a : 0
                        for channel in 0..<3 {
                            out[o + channel] = UInt8(min(max(value[channel] * k, 0), 255).rounded())
                        }
                        out[o + 3] = UInt8(min(max(a, 0), 255).rounded())
                    }
                }
            }
            initialized = size.width * size.height * 4
        }
        guard completed else { return nil }
        var result = Image(width: size.width, height: size.height, pixels: pixels, source: image.source)
        result.metadata = image.metadata
        return result
    }
}
