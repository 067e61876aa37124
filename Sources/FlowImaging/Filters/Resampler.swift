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
    ///
    /// Works in vertical strips of ``stripFloats`` floats so that the input rows a window needs stay in L1/L2:
    /// per strip, input rows are converted to `Float` once into a ring of `weights.stride` rows (each input row
    /// serves several output rows), then each output row is summed 16 floats at a time with all taps inner, so
    /// the accumulator stays in registers.
    private static func verticalPass(source: UnsafePointer<UInt8>, width: Int, weights: ResampleWeights,
                                     into middle: UnsafeMutablePointer<SIMD4<Float>>) {
        let rowLength = width * 4
        let ringSize = max(weights.stride, 1)
        let ring = UnsafeMutablePointer<Float>.allocate(capacity: ringSize * stripFloats)
        defer { ring.deallocate() }
        let slotRow = UnsafeMutablePointer<Int>.allocate(capacity: ringSize)
        defer { slotRow.deallocate() }
        let rows = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: ringSize)
        defer { rows.deallocate() }
        middle.withMemoryRebound(to: Float.self, capacity: rowLength * weights.outputCount) { out in
            weights.weights.withUnsafeBufferPointer { w in
                guard let weightBase = w.baseAddress else { return }
                var x0 = 0
                while x0 < rowLength {
                    let n = min(stripFloats, rowLength - x0)
                    slotRow.initialize(repeating: -1, count: ringSize)
                    for y in 0..<weights.outputCount {
                        let first = weights.starts[y], count = weights.counts[y]
                        for tap in 0..<count {
                            let row = first + tap, slot = row % ringSize
                            let dst = ring + slot * stripFloats
                            if slotRow[slot] != row {
                                let src = source + row * rowLength + x0
                                for i in 0..<n { dst[i] = Float(src[i]) }
                                slotRow[slot] = row
                            }
                            rows[tap] = UnsafePointer(dst)
                        }
                        let acc = out + y * rowLength + x0
                        let wy = weightBase + y * weights.stride
                        var i = 0
                        while i + 16 <= n {
                            var a = SIMD16<Float>.zero
                            for tap in 0..<count {
                                a += wy[tap] * UnsafeRawPointer(rows[tap] + i).loadUnaligned(as: SIMD16<Float>.self)
                            }
                            UnsafeMutableRawPointer(acc + i).storeBytes(of: a, as: SIMD16<Float>.self)
                            i += 16
                        }
                        while i < n {
                            var a: Float = 0
                            for tap in 0..<count { a += wy[tap] * rows[tap][i] }
                            acc[i] = a
                            i += 1
                        }
                    }
                    x0 += n
                }
            }
        }
    }

    /// The width of a vertical-pass strip, in floats (512 RGBA pixels: the ring of ~21 rows stays in L2, and each source row is read in 2 KiB runs).
    private static let stripFloats = 2048

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
                            let o = outRow + x * 4
                            o.storeBytes(of: byte(acc[0]), toByteOffset: 0, as: UInt8.self)
                            o.storeBytes(of: byte(acc[1]), toByteOffset: 1, as: UInt8.self)
                            o.storeBytes(of: byte(acc[2]), toByteOffset: 2, as: UInt8.self)
                            o.storeBytes(of: byte(acc[3]), toByteOffset: 3, as: UInt8.self)
                        }
                    }
                }
            }
        }
    }

    /// Rounds and clamps one channel (scalar: the generic SIMD rounding conversions are slow).
    @inline(__always)
    private static func byte(_ v: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: Int32(min(max(v, 0), 255) + 0.5))
    }
}
