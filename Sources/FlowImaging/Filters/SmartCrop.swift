import Foundation

/// Finds the most interesting `width` × `height` region of a picture, for `position: attention` and
/// `position: entropy` (sharp's smart-crop strategies, defined here in our own terms).
///
/// - **entropy**: the excess of each axis is removed a slice of at most 8 pixels at a time, from whichever end of
///   the current window has the lower Shannon entropy of its luminance histogram, until the window fits (first the
///   columns over the full height, then the rows over the kept columns). Ties remove from either end in turn, so a
///   uniform picture is cropped at its centre.
/// - **attention**: every pixel scores its luminance edge strength (|4L − the four neighbours' L|), its saturation
///   (max − min of R, G, B) and 96 when its colour is a skin tone (the Kovač rule); the region with the largest
///   total score wins, searched on a grid of cells of at most 256 per side; ties go to the region nearest the
///   centre.
///
/// Both read the luminance L = (77 R + 150 G + 29 B) / 256 and ask `shouldContinue` every few rows.
enum SmartCrop {
    /// The origin of the region by entropy; `nil` when stopped.
    static func entropy(
        _ image: Image, width: Int, height: Int, shouldContinue: (Int) -> Bool
    ) -> (x: Int, y: Int)? {
        guard let luma = luminance(image, shouldContinue: shouldContinue) else { return nil }
        let w = image.width
        // Entropy of the luminance in columns x0..<x1 and rows y0..<y1.
        func entropy(_ x0: Int, _ x1: Int, _ y0: Int, _ y1: Int) -> Double {
            var histogram = [Int](repeating: 0, count: 256)
            for y in y0..<y1 {
                for x in x0..<x1 { histogram[Int(luma[y * w + x])] += 1 }
            }
            let total = Double((x1 - x0) * (y1 - y0))
            return histogram.reduce(0.0) { sum, count in
                guard count > 0 else { return sum }
                let p = Double(count) / total
                return sum - p * log2(p)
            }
        }
        // Whether the next tie removes from the start (ties alternate, so a uniform picture is cropped centred).
        var tieAtStart = true
        // Whether to cut the slice at the start, given both slices' entropies.
        func cutStart(_ start: Double, _ end: Double) -> Bool {
            guard start == end else { return start < end }
            defer { tieAtStart.toggle() }
            return tieAtStart
        }
        var (left, right) = (0, w)
        var steps = 0
        while right - left > width {
            steps += 1
            if steps % 16 == 0, !shouldContinue(steps) { return nil }
            let slice = min(8, right - left - width)
            if cutStart(entropy(left, left + slice, 0, image.height), entropy(right - slice, right, 0, image.height)) {
                left += slice
            } else {
                right -= slice
            }
        }
        var (top, bottom) = (0, image.height)
        while bottom - top > height {
            steps += 1
            if steps % 16 == 0, !shouldContinue(steps) { return nil }
            let slice = min(8, bottom - top - height)
            if cutStart(entropy(left, right, top, top + slice), entropy(left, right, bottom - slice, bottom)) {
                top += slice
            } else {
                bottom -= slice
            }
        }
        return (left, top)
    }

    /// The origin of the region by attention; `nil` when stopped.
    static func attention(
        _ image: Image, width: Int, height: Int, shouldContinue: (Int) -> Bool
    ) -> (x: Int, y: Int)? {
        guard let luma = luminance(image, shouldContinue: shouldContinue) else { return nil }
        let (w, h) = (image.width, image.height)
        let cell = max(1, (max(w, h) + 255) / 256)
        let (cw, ch) = ((w + cell - 1) / cell, (h + cell - 1) / cell)
        // Summed scores per cell, then an integral image of them (one row and column of zeros in front).
        var cells = [Double](repeating: 0, count: cw * ch)
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                for x in 0..<w {
                    let i = y * w + x
                    let sides = Int(luma[y * w + max(x - 1, 0)]) + Int(luma[y * w + min(x + 1, w - 1)])
                    let ends = Int(luma[max(y - 1, 0) * w + x]) + Int(luma[min(y + 1, h - 1) * w + x])
                    let edge = abs(4 * Int(luma[i]) - sides - ends)
                    let (r, g, b) = (Int(p[i * 4]), Int(p[i * 4 + 1]), Int(p[i * 4 + 2]))
                    let saturation = max(r, g, b) - min(r, g, b)
                    let skin = r > 95 && g > 40 && b > 20 && r > g && r > b && r - g > 15 && saturation > 15
                    cells[(y / cell) * cw + x / cell] += Double(edge + saturation + (skin ? 96 : 0))
                }
            }
        }
        if !shouldContinue(h) { return nil }
        var integral = [Double](repeating: 0, count: (cw + 1) * (ch + 1))
        for y in 0..<ch {
            var row = 0.0
            for x in 0..<cw {
                row += cells[y * cw + x]
                integral[(y + 1) * (cw + 1) + x + 1] = integral[y * (cw + 1) + x + 1] + row
            }
        }
        // The window in whole cells (at least one); positions step one cell, the last one flush with the edge.
        let (ww, wh) = (max(1, width / cell), max(1, height / cell))
        var best = (score: -1.0, distance: Int.max, x: 0, y: 0)
        for cy in 0...max(0, ch - wh) {
            for cx in 0...max(0, cw - ww) {
                let (x1, y1) = (min(cx + ww, cw), min(cy + wh, ch))
                let score =
                    integral[y1 * (cw + 1) + x1] - integral[cy * (cw + 1) + x1] - integral[y1 * (cw + 1) + cx]
                    + integral[cy * (cw + 1) + cx]
                let x = min(cx * cell, w - width)
                let y = min(cy * cell, h - height)
                let distance = abs(2 * x + width - w) + abs(2 * y + height - h)
                if score > best.score || (score == best.score && distance < best.distance) {
                    best = (score, distance, x, y)
                }
            }
        }
        return (best.x, best.y)
    }

    /// L = (77 R + 150 G + 29 B) / 256 of every pixel; `nil` when stopped.
    private static func luminance(_ image: Image, shouldContinue: (Int) -> Bool) -> [UInt8]? {
        let (w, h) = (image.width, image.height)
        var luma = [UInt8](repeating: 0, count: w * h)
        let stopped: Bool = image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                if y % 64 == 63, !shouldContinue(y) { return true }
                for x in 0..<w {
                    let i = (y * w + x) * 4
                    let r = 77 * Int(p[i])
                    let g = 150 * Int(p[i + 1])
                    let b = 29 * Int(p[i + 2])
                    luma[y * w + x] = UInt8((r + g + b) >> 8)
                }
            }
            return false
        }
        return stopped ? nil : luma
    }
}
