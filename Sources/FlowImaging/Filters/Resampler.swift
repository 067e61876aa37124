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
        // Both buffers are filled completely by the passes: no zero-filling first.
        let middle = [SIMD4<Float>](unsafeUninitializedCapacity: inWidth * height) { middle, initialized in
            image.pixels.withUnsafeBufferPointer { source in
                guard let from = source.baseAddress, let to = middle.baseAddress else { return }
                verticalPass(source: from, width: inWidth, weights: vertical, into: to)
            }
            initialized = inWidth * height
        }
        return [UInt8](unsafeUninitializedCapacity: width * height * 4) { output, initialized in
            middle.withUnsafeBufferPointer { middle in
                guard let from = middle.baseAddress, let to = output.baseAddress else { return }
                horizontalPass(source: from, inWidth: inWidth, rows: height, weights: horizontal, matrix: matrix,
                               into: to)
            }
            initialized = width * height * 4
        }
    }

    /// Every output row `y` = Σ weight · input row (`starts[y] + tap`), as floats.
    ///
    /// Works in vertical strips of ``stripFloats`` floats. Per strip, input rows are converted to `Float` once into
    /// a ring (each input row serves several output rows). Output rows are made two at a time over the union of
    /// their windows (zero weights pad each to the union), 16 floats at a time with all taps inner: every ring
    /// load feeds two accumulators, which halves the cache traffic that bounds this loop.
    private static func verticalPass(source: UnsafePointer<UInt8>, width: Int, weights: ResampleWeights,
                                     into middle: UnsafeMutablePointer<SIMD4<Float>>) {
        let rowLength = width * 4
        let outputCount = weights.outputCount
        // The union of two neighbouring windows: one window plus the step between their starts.
        var maxUnion = 1
        for y in 0..<outputCount {
            let next = min(y + 1, outputCount - 1)
            maxUnion = max(maxUnion, weights.starts[next] + weights.counts[next] - weights.starts[y], weights.counts[y])
        }
        let ringSize = maxUnion
        let ring = UnsafeMutablePointer<Float>.allocate(capacity: ringSize * stripFloats)
        defer { ring.deallocate() }
        let slotRow = UnsafeMutablePointer<Int>.allocate(capacity: ringSize)
        defer { slotRow.deallocate() }
        let rows = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: ringSize)
        defer { rows.deallocate() }
        let wa = UnsafeMutablePointer<Float>.allocate(capacity: ringSize)
        defer { wa.deallocate() }
        let wb = UnsafeMutablePointer<Float>.allocate(capacity: ringSize)
        defer { wb.deallocate() }
        middle.withMemoryRebound(to: Float.self, capacity: rowLength * outputCount) { out in
            weights.weights.withUnsafeBufferPointer { w in
                guard let weightBase = w.baseAddress else { return }
                var x0 = 0
                while x0 < rowLength {
                    let n = min(stripFloats, rowLength - x0)
                    slotRow.initialize(repeating: -1, count: ringSize)
                    var y = 0
                    while y < outputCount {
                        let pair = y + 1 < outputCount
                        let ya = y, yb = pair ? y + 1 : y
                        let first = weights.starts[ya]
                        let union = max(weights.starts[yb] + weights.counts[yb] - first, weights.counts[ya])
                        // Pad both rows' weights to the union window.
                        wa.initialize(repeating: 0, count: union)
                        wb.initialize(repeating: 0, count: union)
                        for tap in 0..<weights.counts[ya] { wa[tap] = weightBase[ya * weights.stride + tap] }
                        let offset = weights.starts[yb] - first
                        for tap in 0..<weights.counts[yb] { wb[offset + tap] = weightBase[yb * weights.stride + tap] }
                        for tap in 0..<union {
                            let row = first + tap, slot = row % ringSize
                            let dst = ring + slot * stripFloats
                            if slotRow[slot] != row {
                                let src = source + row * rowLength + x0
                                for i in 0..<n { dst[i] = Float(src[i]) }
                                slotRow[slot] = row
                            }
                            rows[tap] = UnsafePointer(dst)
                        }
                        let accA = out + ya * rowLength + x0, accB = out + yb * rowLength + x0
                        var i = 0
                        while i + 16 <= n {
                            var a = SIMD16<Float>.zero, b = SIMD16<Float>.zero
                            for tap in 0..<union {
                                let x = UnsafeRawPointer(rows[tap] + i).loadUnaligned(as: SIMD16<Float>.self)
                                a += wa[tap] * x
                                b += wb[tap] * x
                            }
                            UnsafeMutableRawPointer(accA + i).storeBytes(of: a, as: SIMD16<Float>.self)
                            if pair { UnsafeMutableRawPointer(accB + i).storeBytes(of: b, as: SIMD16<Float>.self) }
                            i += 16
                        }
                        while i < n {
                            var a: Float = 0, b: Float = 0
                            for tap in 0..<union { a += wa[tap] * rows[tap][i]; b += wb[tap] * rows[tap][i] }
                            accA[i] = a
                            if pair { accB[i] = b }
                            i += 1
                        }
                        y += 2
                    }
                    x0 += n
                }
            }
        }
    }

    /// The width of a vertical-pass strip, in floats (2048 RGBA pixels: whole rows of the benchmark photos; narrower strips read the source in short runs that the prefetchers follow badly, measured slower).
    private static let stripFloats = 8192

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
                            // Two accumulators: one `addps` chain would wait 3 cycles per tap.
                            var acc = SIMD4<Float>.zero, odd = SIMD4<Float>.zero
                            let count = counts[x]
                            var tap = 0
                            while tap + 1 < count {
                                acc += w[base + tap] * px[tap]
                                odd += w[base + tap + 1] * px[tap + 1]
                                tap += 2
                            }
                            if tap < count { acc += w[base + tap] * px[tap] }
                            acc += odd
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
