import CFlowKernels

/// Exact geometric operations on the stored pixels: a crop, the two flips and the quarter turns. Each moves whole
/// pixels (no resampling), so the result is bit-exact.
extension Image {
    /// The `width` × `height` region whose top-left pixel is (`x`, `y`); the region must lie inside the image.
    package func cropped(x: Int, y: Int, width regionWidth: Int, height regionHeight: Int) -> Image {
        precondition(
            x >= 0 && y >= 0 && regionWidth > 0 && regionHeight > 0 && x + regionWidth <= width
                && y + regionHeight <= height, "the crop region lies inside the image")
        let rowBytes = regionWidth * 4
        let out = [UInt8](unsafeUninitializedCapacity: rowBytes * regionHeight) { out, initialized in
            pixels.withUnsafeBufferPointer { source in
                guard let from = source.baseAddress, let to = out.baseAddress else { return }
                for row in 0..<regionHeight {
                    (to + row * rowBytes).update(from: from + ((y + row) * width + x) * 4, count: rowBytes)
                }
            }
            initialized = rowBytes * regionHeight
        }
        return derived(width: regionWidth, height: regionHeight, pixels: out)
    }

    /// The image mirrored left to right (`horizontal`) or top to bottom.
    package func flipped(horizontal: Bool) -> Image {
        flipped(horizontal: horizontal) { _ in true } ?? self
    }

    /// ``flipped(horizontal:)``, asking `shouldContinue` every 64 rows; `nil` when it returned `false`.
    func flipped(horizontal: Bool, shouldContinue: (Int) -> Bool) -> Image? {
        mirrored(horizontally: horizontal, vertically: !horizontal, shouldContinue: shouldContinue)
    }

    /// The image mirrored left to right, top to bottom, or both (a half turn) in one pass, asking
    /// `shouldContinue` every 64 rows; `nil` when it returned `false`.
    private func mirrored(horizontally: Bool, vertically: Bool, shouldContinue: (Int) -> Bool) -> Image? {
        let (w, h) = (width, height)
        let out = remapped(width: w, height: h) { source, target in
            for y in 0..<h {
                if y % 64 == 63, !shouldContinue(y) { return false }
                let from = source + y * w * 4
                let to = target + (vertically ? h - 1 - y : y) * w * 4
                if horizontally {
                    cflow_reverse_row(
                        from.assumingMemoryBound(to: UInt32.self), w, to.assumingMemoryBound(to: UInt32.self))
                } else {
                    to.copyMemory(from: from, byteCount: w * 4)
                }
            }
            return true
        }
        return out.map { derived(width: w, height: h, pixels: $0) }
    }

    /// The image turned clockwise by `quarterTurns` × 90° (any integer; taken modulo 4).
    package func rotated(quarterTurns: Int) -> Image {
        rotated(quarterTurns: quarterTurns) { _ in true } ?? self
    }

    /// ``rotated(quarterTurns:)``, asking `shouldContinue` every 64 source rows; `nil` when it returned `false`.
    func rotated(quarterTurns: Int, shouldContinue: (Int) -> Bool) -> Image? {
        let turns = (quarterTurns % 4 + 4) % 4
        switch turns {
        case 0: return self
        case 2: return mirrored(horizontally: true, vertically: true, shouldContinue: shouldContinue)
        default: break
        }
        let clockwise: Int32 = turns == 1 ? 1 : 0
        let (w, h) = (width, height)
        let out = remapped(width: h, height: w) { source, target in
            let from = source.assumingMemoryBound(to: UInt32.self)
            let to = target.assumingMemoryBound(to: UInt32.self)
            for band in stride(from: 0, to: h, by: 64) {
                if band > 0, !shouldContinue(band) { return false }
                cflow_rotate_quarter(from, w, h, to, band, min(band + 64, h), clockwise)
            }
            return true
        }
        guard let out else { return nil }
        var result = derived(width: h, height: w, pixels: out)
        result.originalWidth = originalHeight
        result.originalHeight = originalWidth
        return result
    }

    /// A new `width` × `height` RGBA8 buffer that `fill(source, target)` writes completely, from this image's
    /// pixels (as raw bytes); `nil` when `fill` returns `false` (stopped).
    private func remapped(
        width: Int, height: Int, fill: (UnsafeRawPointer, UnsafeMutableRawPointer) -> Bool
    ) -> [UInt8]? {
        var completed = false
        let out = [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, initialized in
            pixels.withUnsafeBytes { source in
                guard let from = source.baseAddress, let to = out.baseAddress else { return }
                completed = fill(from, UnsafeMutableRawPointer(to))
            }
            initialized = completed ? width * height * 4 : 0
        }
        return completed ? out : nil
    }

    /// A new image of these pixels that keeps this one's source, metadata, and original size and scale.
    func derived(width: Int, height: Int, pixels: [UInt8]) -> Image {
        var result = Image(width: width, height: height, pixels: pixels, source: source)
        result.metadata = metadata
        if width == self.width, height == self.height {
            result.originalWidth = originalWidth
            result.originalHeight = originalHeight
            result.decodedScale = decodedScale
        } else if width == self.height, height == self.width {
            result.decodedScale = decodedScale
        }
        return result
    }
}
