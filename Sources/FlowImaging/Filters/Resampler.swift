/// Separable two-pass resampling of RGBA8 pixels.
///
/// Pass 1 runs vertically, row by row: each output row is a weighted sum of whole input rows, a long
/// contiguous loop of `UInt8 → Float` multiply-adds that LLVM vectorises (8 or 16 lanes). Its result stays in
/// `Float` (no rounding between passes). Pass 2 runs horizontally over the already reduced rows with one
/// `SIMD4<Float>` per pixel, then rounds and clamps once, after applying an optional colour matrix — this
/// is where a deferred `sepia` costs almost nothing (see ``Image/pendingColor``).
enum Resampler {
    /// Resamples `image`'s stored pixels to `width` × `height`, then applies `matrix` if given.
    static func resample(_ image: Image, width: Int, height: Int, filter: ResampleFilter,
                         matrix: ColorMatrix?) -> [UInt8] {
        let vertical = ResampleWeights(inputCount: image.height, outputCount: height, filter: filter)
        let horizontal = ResampleWeights(inputCount: image.width, outputCount: width, filter: filter)
        let inWidth = image.width
        var middle = [SIMD4<Float>](repeating: .zero, count: inWidth * height)
        image.pixels.withUnsafeBufferPointer { source in
            middle.withUnsafeMutableBufferPointer { middle in
                verticalPass(source: source.baseAddress!, width: inWidth, weights: vertical, into: middle.baseAddress!)
            }
        }
        var output = [UInt8](repeating: 0, count: width * height * 4)
        middle.withUnsafeBufferPointer { middle in
            output.withUnsafeMutableBufferPointer { output in
                horizontalPass(source: middle.baseAddress!, inWidth: inWidth, rows: height, weights: horizontal,
                               matrix: matrix, into: output.baseAddress!)
            }
        }
        return output
    }

    /// Every output row `y` = Σ weight · input row (`starts[y] + tap`), as floats.
    private static func verticalPass(source: UnsafePointer<UInt8>, width: Int, weights: ResampleWeights,
                                     into middle: UnsafeMutablePointer<SIMD4<Float>>) {
        let rowLength = width * 4
        middle.withMemoryRebound(to: Float.self, capacity: rowLength * weights.outputCount) { out in
            weights.weights.withUnsafeBufferPointer { w in
                for y in 0..<weights.outputCount {
                    let acc = out + y * rowLength
                    let first = weights.starts[y], count = weights.counts[y]
                    let base = y * weights.stride
                    var src = source + first * rowLength
                    let w0 = w[base]
                    for i in 0..<rowLength { acc[i] = w0 * Float(src[i]) }
                    for tap in 1..<max(count, 1) {
                        src = source + (first + tap) * rowLength
                        let wk = w[base + tap]
                        for i in 0..<rowLength { acc[i] += wk * Float(src[i]) }
                    }
                }
            }
        }
    }

    /// Every output pixel = Σ weight · middle pixel, colour matrix, round, clamp.
    private static func horizontalPass(source: UnsafePointer<SIMD4<Float>>, inWidth: Int, rows: Int,
                                       weights: ResampleWeights, matrix: ColorMatrix?,
                                       into output: UnsafeMutablePointer<UInt8>) {
        let outWidth = weights.outputCount
        let raw = UnsafeMutableRawPointer(output)
        weights.weights.withUnsafeBufferPointer { w in
            weights.starts.withUnsafeBufferPointer { starts in
                weights.counts.withUnsafeBufferPointer { counts in
                    for y in 0..<rows {
                        let row = source + y * inWidth
                        let outRow = raw + y * outWidth * 4
                        for x in 0..<outWidth {
                            let base = x * weights.stride
                            let px = row + starts[x]
                            var acc = SIMD4<Float>.zero
                            for tap in 0..<counts[x] { acc += w[base + tap] * px[tap] }
                            if let matrix { acc = matrix.transform(acc) }
                            let clamped = acc.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
                            let rounded = SIMD4<Int32>(clamped + 0.5, rounding: .towardZero)
                            outRow.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: rounded), toByteOffset: x * 4,
                                              as: SIMD4<UInt8>.self)
                        }
                    }
                }
            }
        }
    }
}
