import CFlowKernels

/// Separable two-pass resampling of RGBA8 pixels.
///
/// Opaque images (every photo) are resampled in fixed point, see
/// ``resampleOpaque(_:horizontal:vertical:matrix:kernel:shouldContinue:)``. Images with transparency take the float
/// path described here, premultiplied by alpha so the colour of transparent pixels does not bleed into visible ones:
///
/// Pass 1 (``HorizontalPass``) runs horizontally, source row by source row: the row goes through a deferred colour
/// matrix if any (rounded to bytes exactly as `sepia` would), is widened to `Float` and premultiplied by alpha, then
/// every output pixel is a weighted sum of `SIMD4<Float>` pixels. Doing the
/// narrowing pass first means pass 2 reads rows only `width` wide, whose window of ~20 rows stays in L2. Pass 2 runs
/// vertically, two output rows per sweep over the union of their windows (every load feeds two accumulators),
/// 16 floats at a time; it then undoes the premultiplication and rounds once.
///
/// On CPUs with AVX2 and FMA the inner loops run in C (see ``FilterKernel``). The sums are the same up to float
/// rounding. Both passes ask a `shouldContinue` check every ``rowsPerCheck`` rows, so a cancelled resize stops
/// within milliseconds.
enum Resampler {
    /// How many rows a pass computes between two calls of its `shouldContinue` check: often enough that a cancelled
    /// 50-megapixel resize stops within milliseconds, rarely enough that the check costs nothing measurable.
    static let rowsPerCheck = 16

    /// Resamples `image`'s stored pixels to `width` × `height`, applying `matrix` first if given.
    ///
    /// The matrix is applied to each source row as it is read, rounded and clamped to 8 bits exactly as a `sepia`
    /// node would have applied it, so deferring a colour step to the resize changes no pixel: only the work is
    /// fused (no full-size buffer is written and read again). An image with any alpha below 255 is resampled
    /// premultiplied, so the colour of transparent pixels does not bleed into visible ones.
    /// - Parameter shouldContinue: Asked every ``rowsPerCheck`` rows with the number of rows done so far; when it
    ///   returns `false` the resample stops and returns `nil`.
    /// - Returns: The RGBA8 pixels, or `nil` when stopped.
    static func resample(
        _ image: Image, width: Int, height: Int, filter: ResampleFilter,
        matrix: ColorMatrix?, kernel: FilterKernel = .best,
        shouldContinue: (_ rowsDone: Int) -> Bool = { _ in true }
    ) -> [UInt8]? {
        // After shrink-on-load the pixels may cover a little less than their count (see `decodedScale`).
        let shrunk = image.decodedScale < 1
        let extentX = shrunk ? Double(image.originalWidth) * image.decodedScale : Double(image.width)
        let extentY = shrunk ? Double(image.originalHeight) * image.decodedScale : Double(image.height)
        let horizontal = ResampleWeights.cached(
            inputCount: image.width, extent: min(extentX, Double(image.width)), outputCount: width, filter: filter)
        let vertical = ResampleWeights.cached(
            inputCount: image.height, extent: min(extentY, Double(image.height)), outputCount: height, filter: filter)
        if image.isOpaque {
            return resampleOpaque(
                image, horizontal: horizontal, vertical: vertical, matrix: matrix, kernel: kernel,
                shouldContinue: shouldContinue)
        }
        let pass = HorizontalPass(weights: horizontal, inWidth: image.width, matrix: matrix, kernel: kernel)
        let rows = image.height
        var completed = true
        // Both buffers are filled completely by the passes (or dropped when stopped): no zero-filling first.
        let middle = [SIMD4<Float>](unsafeUninitializedCapacity: width * rows) { middle, initialized in
            image.pixels.withUnsafeBufferPointer { source in
                guard let from = source.baseAddress, let to = middle.baseAddress else { return }
                completed = pass.run(source: from, rows: rows, into: to, shouldContinue: shouldContinue)
            }
            initialized = width * rows
        }
        guard completed else { return nil }
        let output = [UInt8](unsafeUninitializedCapacity: width * height * 4) { output, initialized in
            middle.withUnsafeBufferPointer { middle in
                guard let from = middle.baseAddress, let to = output.baseAddress else { return }
                completed = verticalPass(
                    source: from, width: width, weights: vertical, kernel: kernel,
                    into: to, shouldContinue: { shouldContinue(rows + $0) })
            }
            initialized = width * height * 4
        }
        return completed ? output : nil
    }

    /// Every output row `y` = Σ weight · middle row (`starts[y] + tap`), colour matrix, round, clamp.
    /// - Returns: `false` when `shouldContinue` stopped it.
    private static func verticalPass(
        source: UnsafePointer<SIMD4<Float>>, width: Int, weights: ResampleWeights,
        kernel: FilterKernel, into output: UnsafeMutablePointer<UInt8>,
        shouldContinue: (_ rowsDone: Int) -> Bool
    ) -> Bool {
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
        return source.withMemoryRebound(to: Float.self, capacity: 1) { floats in
            weights.weights.withUnsafeBufferPointer { w in
                guard let weightBase = w.baseAddress else { return true }
                var y = 0
                while y < outputCount {
                    if y > 0, y % rowsPerCheck == 0, !shouldContinue(y) { return false }
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
                        finish(
                            rowA, width: width, kernel: kernel,
                            into: output + ya * rowLength)
                        if pair {
                            finish(
                                rowB, width: width, kernel: kernel,
                                into: output + yb * rowLength)
                        }
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
                    finish(
                        rowA, width: width, kernel: kernel, into: output + ya * rowLength)
                    if pair {
                        finish(
                            rowB, width: width, kernel: kernel,
                            into: output + yb * rowLength)
                    }
                    y += 2
                }
                return true
            }
        }
    }

    /// One row of premultiplied float pixels to RGBA8: undo the premultiplication, round, clamp.
    @inline(__always)
    private static func finish(
        _ row: UnsafeMutablePointer<Float>, width: Int, kernel: FilterKernel,
        into output: UnsafeMutablePointer<UInt8>
    ) {
        for x in 0..<width {
            // Ringing may push alpha past 0…255; divide by what will be stored. A pixel whose alpha rounds to 0 has
            // no colour.
            let alpha = min(row[4 * x + 3], 255)
            let unscale: Float = alpha >= 0.5 ? 255 / alpha : 0
            row[4 * x] *= unscale
            row[4 * x + 1] *= unscale
            row[4 * x + 2] *= unscale
        }
        if kernel == .avx2 {
            cflow_round_to_bytes_avx2(row, width * 4, output)
            return
        }
        for i in 0..<width * 4 { output[i] = byte(row[i]) }
    }

    /// Rounds and clamps one channel (scalar: the generic SIMD rounding conversions are slow).
    @inline(__always)
    private static func byte(_ v: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: Int32(min(max(v, 0), 255) + 0.5))
    }
}
