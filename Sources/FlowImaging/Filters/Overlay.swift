extension Image {
    /// `overlay` composited over this image with its top-left pixel at (`x`, `y`) — the parts outside are dropped —
    /// its alpha scaled by `opacity` (0…1).
    ///
    /// Porter–Duff *over* on straight alpha, per pixel: αs = opacity · As / 255, αd = Ad / 255,
    /// α = αs + αd (1 − αs), C = (Cs αs + Cd αd (1 − αs)) / α, each result rounded to nearest. So a transparent
    /// overlay pixel changes nothing, an opaque one at opacity 1 replaces the pixel, and the colour hidden under a
    /// transparent base pixel does not show through. `nil` when `shouldContinue` (every 16 rows) stopped it.
    func overlaid(
        with overlay: Image, x: Int, y: Int, opacity: Double, shouldContinue: (Int) -> Bool
    ) -> Image? {
        let base = materialized()
        let top = overlay.materialized()
        let (x0, x1) = (max(0, x), min(width, x + top.width))
        let (y0, y1) = (max(0, y), min(height, y + top.height))
        guard x0 < x1, y0 < y1, opacity > 0 else { return base }
        let strength = Float(opacity) / 255
        var pixels = base.pixels
        let stopped: Bool = pixels.withUnsafeMutableBufferPointer { out in
            top.pixels.withUnsafeBufferPointer { source in
                for row in y0..<y1 {
                    if (row - y0) % 16 == 15, !shouldContinue(row - y0) { return true }
                    for column in x0..<x1 {
                        let s = ((row - y) * top.width + column - x) * 4
                        let d = (row * width + column) * 4
                        let alphaS = Float(source[s + 3]) * strength
                        guard alphaS > 0 else { continue }
                        let alphaD = Float(out[d + 3]) / 255
                        let keep = alphaD * (1 - alphaS)
                        let alpha = alphaS + keep
                        for c in 0..<3 {
                            let value = (Float(source[s + c]) * alphaS + Float(out[d + c]) * keep) / alpha
                            out[d + c] = UInt8(min(max(value, 0), 255) + 0.5)
                        }
                        out[d + 3] = UInt8(min(alpha * 255, 255) + 0.5)
                    }
                }
                return false
            }
        }
        return stopped ? nil : base.derived(width: width, height: height, pixels: pixels)
    }
}
