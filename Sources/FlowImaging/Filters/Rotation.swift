import CFlowKernels
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
    /// 16 rows). The sampling runs in C (`cflow_rotate_rows`), a band of rows at a time.
    static func rotated(
        _ image: Image, degrees: Double, background: RGBAColor, shouldContinue: (Int) -> Bool
    ) -> Image? {
        let (w, h) = (image.width, image.height)
        let size = boundingSize(width: w, height: h, degrees: degrees)
        let radians = degrees * .pi / 180
        let (c, s) = (cos(radians), sin(radians))
        // Output (x, y) → source: the inverse turn about the centres, then to pixel-centre coordinates.
        let (outX, outY) = (Double(size.width) / 2, Double(size.height) / 2)
        let (inX, inY) = (Double(w) / 2, Double(h) / 2)
        let transform: [Float] = [
            Float(c), Float(s), Float(-c * outX - s * outY + inX - 0.5),
            Float(-s), Float(c), Float(s * outX - c * outY + inY - 0.5),
        ]
        let alpha = Float(background.rgba.w) / 255
        let fill: [Float] = [
            Float(background.rgba.x) * alpha, Float(background.rgba.y) * alpha, Float(background.rgba.z) * alpha,
            Float(background.rgba.w),
        ]
        // Straight interpolation is exact while everything is opaque; otherwise premultiplied, so that neither the
        // background nor hidden colours tint the edges.
        let premultiply: Int32 = image.isOpaque && background.rgba.w == 255 ? 0 : 1
        var completed = true
        let pixels = [UInt8](unsafeUninitializedCapacity: size.width * size.height * 4) { out, initialized in
            image.pixels.withUnsafeBufferPointer { source in
                guard let from = source.baseAddress, let to = out.baseAddress else { return }
                for band in stride(from: 0, to: size.height, by: 16) {
                    if band > 0, !shouldContinue(band) {
                        completed = false
                        return
                    }
                    cflow_rotate_rows(
                        from, w, h, to, size.width, band, min(band + 16, size.height), transform, fill, premultiply)
                }
            }
            initialized = completed ? size.width * size.height * 4 : 0
        }
        guard completed else { return nil }
        var result = Image(width: size.width, height: size.height, pixels: pixels, source: image.source)
        result.metadata = image.metadata
        return result
    }
}
