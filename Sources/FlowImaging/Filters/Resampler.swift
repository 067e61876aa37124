import CFlowKernels

/// Separable two-pass resampling of RGBA8 pixels.
///
/// Pass 1 runs horizontally, source row by source row: the row is widened to `Float` once (a contiguous loop LLVM
/// vectorises, into a buffer that stays in L1), then every output pixel is a weighted sum of `SIMD4<Float>`
/// pixels with two accumulators. Doing the narrowing pass first means pass 2 reads rows only `width` wide, whose
/// window of ~20 rows stays in L2. Pass 2 runs vertically, two output rows per sweep over the union of their
/// windows (every load feeds two accumulators), 16 floats at a time; it then applies an optional colour matrix
/// and rounds once — this is where a deferred `sepia` costs almost nothing (see ``Image/pendingColor``).
///
/// On CPUs with AVX2 and FMA the inner loops run in C (see ``FilterKernel``). The sums are the same up to float
/// rounding.
enum Resampler {
    /// Resamples `image`'s stored pixels to `width` × `height`, then applies `matrix` if given.
    static func resample(
        _ image: Image, width: Int, height: Int, filter: ResampleFilter,
        matrix: ColorMatrix?, kernel: FilterKernel = .best
    ) -> [UInt8] {
        // After shrink-on-load the pixels may cover a little less than their count (see `decodedScale`).
        let shrunk = image.decodedScale < 1
        let extentX = shrunk ? Double(image.originalWidth) * image.decodedScale : Double(image.width)
        let extentY = shrunk ? Double(image.originalHeight) * image.decodedScale : Double(image.height)
        let horizontal = ResampleWeights(
            inputCount: image.width, extent: min(extentX, Double(image.width)),
            outputCount: width, filter: filter)
        let vertical = ResampleWeights(
            inputCount: image.height, extent: min(extentY, Double(image.height)),
            outputCount: height, filter: filter)
        let rows = image.height
        // Both buffers are filled completely by the passes: no zero-filling first.
        let middle = [SIMD4<Float>](unsafeUninitializedCapacity: width * rows) { middle, initialized in
            image.pixels.withUnsafeBufferPointer { source in
                guard let from = source.baseAddress, let to = middle.baseAddress else { return }
                switch kernel {
                case .portable:
                    horizontalPass(source: from, inWidth: image.width, rows: rows, weights: horizontal, into: to)
                case .avx2:
                    horizontalPassAVX2(source: from, inWidth: image.width, rows: rows, weights: horizontal, into: to)
                }
            }
            initialized = width * rows
        }
        return [UInt8](unsafeUninitializedCapacity: width * height * 4) { output, initialized in
            middle.withUnsafeBufferPointer { middle in
                guard let from = middle.baseAddress, let to = output.baseAddress else { return }
                verticalPass(source: from, width: width, weights: vertical, matrix: matrix, kernel: kernel, into: to)
            }
            initialized = width * height * 4
        }
    }

    /// Every middle pixel = Σ weight · source pixel of the same row, in floats.
    private static func horizontalPass(
        source: UnsafePointer<UInt8>, inWidth: Int, rows: Int,
        weights: ResampleWeights, into middle: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        let outWidth = weights.outputCount
        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: inWidth)
        defer { row.deallocate() }
        // Weights splatted to four lanes once, so the tap loop is load, multiply, add (no shuffle per tap).
        let splatted = weights.weights.map { SIMD4<Float>(repeating: $0) }
        splatted.withUnsafeBufferPointer { w in
            weights.starts.withUnsafeBufferPointer { starts in
                weights.counts.withUnsafeBufferPointer { counts in
                    for y in 0..<rows {
                        let src = source + y * inWidth * 4
                        row.withMemoryRebound(to: Float.self, capacity: inWidth * 4) { floats in
                            for i in 0..<inWidth * 4 { floats[i] = Float(src[i]) }
                        }
                        let out = middle + y * outWidth
                        for x in 0..<outWidth {
                            let base = x * weights.stride
                            let px = row + starts[x]
                            // Two accumulators: one `addps` chain would wait 3 cycles per tap.
                            var acc = SIMD4<Float>.zero
                            var odd = SIMD4<Float>.zero
                            let count = counts[x]
                            var tap = 0
                            while tap + 1 < count {
                                acc += w[base + tap] * px[tap]
                                odd += w[base + tap + 1] * px[tap + 1]
                                tap += 2
                            }
                            if tap < count { acc += w[base + tap] * px[tap] }
                            out[x] = acc + odd
                        }
                    }
                }
            }
        }
    }

    /// ``horizontalPass(source:inWidth:rows:weights:into:)`` in C with AVX2: two taps per fused multiply-add.
    private static func horizontalPassAVX2(
        source: UnsafePointer<UInt8>, inWidth: Int, rows: Int,
        weights: ResampleWeights, into middle: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        // Splatted to four lanes, with an even stride and zeros past each window, so taps go in pairs.
        let stride = (weights.stride + 1) / 2 * 2
        var splatted = [Float](repeating: 0, count: weights.outputCount * stride * 4)
        for x in 0..<weights.outputCount {
            for tap in 0..<weights.counts[x] {
                let weight = weights.weights[x * weights.stride + tap]
                for lane in 0..<4 { splatted[(x * stride + tap) * 4 + lane] = weight }
            }
        }
        // One pixel more than the row: an odd window's last pair reads it, times a zero weight.
        let row = UnsafeMutablePointer<Float>.allocate(capacity: (inWidth + 1) * 4)
        defer { row.deallocate() }
        middle.withMemoryRebound(to: Float.self, capacity: weights.outputCount * rows * 4) { out in
            cflow_resample_horizontal_avx2(
                source, inWidth, rows, splatted, stride, weights.starts, weights.counts, weights.outputCount, row, out)
        }
    }

    /// Every output row `y` = Σ weight · middle row (`starts[y] + tap`), colour matrix, round, clamp.
    private static func verticalPass(
        source: UnsafePointer<SIMD4<Float>>, width: Int, weights: ResampleWeights,
        matrix: ColorMatrix?, kernel: FilterKernel, into output: UnsafeMutablePointer<UInt8>
    ) {
        let rowLength = width * 4
        let outputCount = weights.outputCount
        // The union of two neighbouring windows: one window plus the step between their starts.
        var capacity = 1
        for y in 0..<outputCount {
            let next = min(y + 1, outputCount - 1)
            capacity = max(capacity, weights.starts[next] + weights.counts[next] - weights.starts[y], weights.counts[y])
        }
        let wa = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        defer { wa.deallocate() }
        let wb = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        defer { wb.deallocate() }
        let rowA = UnsafeMutablePointer<Float>.allocate(capacity: rowLength)
        defer { rowA.deallocate() }
        let rowB = UnsafeMutablePointer<Float>.allocate(capacity: rowLength)
        defer { rowB.deallocate() }
        source.withMemoryRebound(to: Float.self, capacity: 1) { floats in
            weights.weights.withUnsafeBufferPointer { w in
                guard let weightBase = w.baseAddress else { return }
                var y = 0
                while y < outputCount {
                    let pair = y + 1 < outputCount
                    let ya = y
                    let yb = pair ? y + 1 : y
                    let first = weights.starts[ya]
                    let union = max(weights.starts[yb] + weights.counts[yb] - first, weights.counts[ya])
                    // Pad both rows' weights to the union window.
                    wa.initialize(repeating: 0, count: union)
                    wb.initialize(repeating: 0, count: union)
                    for tap in 0..<weights.counts[ya] { wa[tap] = weightBase[ya * weights.stride + tap] }
                    let offset = weights.starts[yb] - first
                    for tap in 0..<weights.counts[yb] {
                        wb[offset + tap] = weightBase[yb * weights.stride + tap]
                    }
                    let top = floats + first * rowLength
                    if kernel == .avx2 {
                        cflow_resample_vertical_pair_avx2(top, rowLength, union, wa, wb, rowA, rowB)
                        finish(rowA, width: width, matrix: matrix, into: output + ya * rowLength)
                        if pair { finish(rowB, width: width, matrix: matrix, into: output + yb * rowLength) }
                        y += 2
                        continue
                    }
                    var i = 0
                    while i + 16 <= rowLength {
                        var a = SIMD16<Float>.zero
                        var b = SIMD16<Float>.zero
                        for tap in 0..<union {
                            let x = UnsafeRawPointer(top + tap * rowLength + i).loadUnaligned(as: SIMD16<Float>.self)
                            a += wa[tap] * x
                            b += wb[tap] * x
                        }
                        UnsafeMutableRawPointer(rowA + i).storeBytes(of: a, as: SIMD16<Float>.self)
                        UnsafeMutableRawPointer(rowB + i).storeBytes(of: b, as: SIMD16<Float>.self)
                        i += 16
                    }
                    while i < rowLength {
                        var a: Float = 0
                        var b: Float = 0
                        for tap in 0..<union {
                            let x = top[tap * rowLength + i]
                            a += wa[tap] * x
                            b += wb[tap] * x
                        }
                        rowA[i] = a
                        rowB[i] = b
                        i += 1
                    }
                    finish(rowA, width: width, matrix: matrix, into: output + ya * rowLength)
                    if pair { finish(rowB, width: width, matrix: matrix, into: output + yb * rowLength) }
                    y += 2
                }
            }
        }
    }

    /// One row of float pixels to RGBA8: colour matrix (if any), round, clamp.
    @inline(__always)
    private static func finish(
        _ row: UnsafeMutablePointer<Float>, width: Int, matrix: ColorMatrix?,
        into output: UnsafeMutablePointer<UInt8>
    ) {
        if let matrix {
            let m = (
                matrix.row0[0], matrix.row0[1], matrix.row0[2], matrix.row1[0], matrix.row1[1], matrix.row1[2],
                matrix.row2[0], matrix.row2[1], matrix.row2[2]
            )
            for x in 0..<width {
                let r = row[4 * x]
                let g = row[4 * x + 1]
                let b = row[4 * x + 2]
                row[4 * x] = m.0 * r + m.1 * g + m.2 * b
                row[4 * x + 1] = m.3 * r + m.4 * g + m.5 * b
                row[4 * x + 2] = m.6 * r + m.7 * g + m.8 * b
            }
        }
        for i in 0..<width * 4 { output[i] = byte(row[i]) }
    }

    /// Rounds and clamps one channel (scalar: the generic SIMD rounding conversions are slow).
    @inline(__always)
    private static func byte(_ v: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: Int32(min(max(v, 0), 255) + 0.5))
    }
}
