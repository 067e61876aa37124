import CFlowKernels

/// The first, horizontal pass of ``Resampler``: every source row, widened to `Float`, becomes `weights.outputCount`
/// pixels that are weighted sums of its pixels.
///
/// Before a row is widened it may go through a colour matrix (a deferred `sepia`), rounded to bytes exactly as the
/// matrix alone would round them; after widening, its colour is premultiplied by alpha. Rows are done two at a
/// time, so the pass can stop between pairs.
struct HorizontalPass {
    /// The weights of the pass.
    let weights: ResampleWeights
    /// The width of a source row in pixels.
    let inWidth: Int
    /// A colour matrix for every source pixel first, or `nil`.
    let matrix: ColorMatrix?
    /// The code that runs the loops.
    let kernel: FilterKernel

    /// Runs the pass over `rows` source rows.
    /// - Returns: `false` when `shouldContinue` (asked every ``Resampler/rowsPerCheck`` rows with the rows done)
    ///   stopped it.
    func run(
        source: UnsafePointer<UInt8>, rows: Int, into middle: UnsafeMutablePointer<SIMD4<Float>>,
        shouldContinue: (_ rowsDone: Int) -> Bool
    ) -> Bool {
        let outWidth = weights.outputCount
        // Rows go in pairs: the AVX2 kernel loads each weight once for both.
        let toned = matrix.map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * inWidth * 4) }
        defer { toned?.deallocate() }
        // Two rows of one pixel more than the source row: the AVX2 kernel's odd window reads it, times a zero weight.
        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 2 * (inWidth + 1))
        defer { row.deallocate() }
        let taps = kernel == .avx2 ? pairedWeights() : splattedWeights()
        return taps.withUnsafeBufferPointer { taps in
            guard let tapBase = taps.baseAddress else { return true }
            for y in stride(from: 0, to: rows, by: 2) {
                if y > 0, y % Resampler.rowsPerCheck == 0, !shouldContinue(y) { return false }
                let count = min(2, rows - y)
                var src = source + y * inWidth * 4
                if let matrix, let toned {
                    matrix.apply(from: src, to: toned, count: count * inWidth, kernel: kernel)
                    src = UnsafePointer(toned)
                }
                let out = middle + y * outWidth
                switch kernel {
                case .avx2:
                    row.withMemoryRebound(to: Float.self, capacity: 2 * (inWidth + 1) * 4) { scratch in
                        out.withMemoryRebound(to: Float.self, capacity: count * outWidth * 4) { out in
                            cflow_resample_horizontal_avx2(
                                src, inWidth, count, UnsafeRawPointer(tapBase).assumingMemoryBound(to: Float.self),
                                (weights.stride + 1) / 2 * 2, weights.starts, weights.counts, outWidth, scratch, out)
                        }
                    }
                case .portable:
                    for pair in 0..<count {
                        widen(src + pair * inWidth * 4, into: row)
                        filter(row, weights: tapBase, into: out + pair * outWidth)
                    }
                }
            }
            return true
        }
    }

    /// One row of bytes to floats, colour premultiplied by alpha.
    private func widen(_ src: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<SIMD4<Float>>) {
        row.withMemoryRebound(to: Float.self, capacity: inWidth * 4) { floats in
            for i in 0..<inWidth * 4 { floats[i] = Float(src[i]) }
        }
        for x in 0..<inWidth {
            let p = row[x]
            let scale = p[3] / 255
            row[x] = SIMD4(p[0] * scale, p[1] * scale, p[2] * scale, p[3])
        }
    }

    /// Every output pixel of one row = Σ weight · pixel, with two accumulators (one `addps` chain would wait
    /// 3 cycles per tap).
    private func filter(
        _ row: UnsafeMutablePointer<SIMD4<Float>>, weights w: UnsafePointer<SIMD4<Float>>,
        into out: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        for x in 0..<weights.outputCount {
            let base = x * weights.stride
            let px = row + weights.starts[x]
            var acc = SIMD4<Float>.zero
            var odd = SIMD4<Float>.zero
            let count = weights.counts[x]
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

    /// The weights splatted to four lanes, so the tap loop is load, multiply, add (no shuffle per tap).
    private func splattedWeights() -> [SIMD4<Float>] {
        weights.weights.map { SIMD4<Float>(repeating: $0) }
    }

    /// The weights splatted to four lanes with an even stride and zeros past each window, so the AVX2 kernel
    /// takes taps in pairs.
    private func pairedWeights() -> [SIMD4<Float>] {
        let stride = (weights.stride + 1) / 2 * 2
        var splatted = [SIMD4<Float>](repeating: .zero, count: weights.outputCount * stride)
        for x in 0..<weights.outputCount {
            for tap in 0..<weights.counts[x] {
                splatted[x * stride + tap] = SIMD4(repeating: weights.weights[x * weights.stride + tap])
            }
        }
        return splatted
    }
}
