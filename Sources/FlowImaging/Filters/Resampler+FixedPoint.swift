import CFlowKernels

extension Resampler {
    /// Resamples opaque pixels in fixed point, as Pillow-SIMD does: 16-bit coefficients and 32-bit integer sums,
    /// with the AVX2 kernels of `CFlowKernels` where the CPU has them (both kernels give the same bytes).
    ///
    /// Output rows are made one at a time, from a ring of horizontally resampled source rows (16-bit, a 64th of a
    /// level, see ``FixedPointWeights/fractionBits``): a source row is read, toned by `matrix` if any, and narrowed
    /// once, when the first output row that needs it comes, so only a window's worth of narrowed rows (kilobytes,
    /// in L1/L2) exists at a time, and source rows no output needs are never read. Within a level of the exact
    /// result (the float path's accuracy); no premultiplication, so only for images without transparency.
    /// - Parameter shouldContinue: Asked every ``rowsPerCheck`` output rows with the rows done.
    /// - Returns: The RGBA8 pixels, or `nil` when stopped.
    static func resampleOpaque(
        _ image: Image, horizontal: ResampleWeights, vertical: ResampleWeights, matrix: ColorMatrix?,
        kernel: FilterKernel, shouldContinue: (_ rowsDone: Int) -> Bool
    ) -> [UInt8]? {
        let across = FixedPointWeights(horizontal, strideMultiple: 4, largestInput: Int(UInt8.max))
        let down = FixedPointWeights(vertical, strideMultiple: 1, largestInput: Int(Int16.max))
        let inWidth = image.width
        let rowLength = horizontal.outputCount * 4
        let outHeight = vertical.outputCount
        let capacity = down.counts.max() ?? 1
        let ring = UnsafeMutablePointer<Int16>.allocate(capacity: capacity * rowLength)
        defer { ring.deallocate() }
        let window = UnsafeMutablePointer<UnsafePointer<Int16>?>.allocate(capacity: capacity)
        defer { window.deallocate() }
        // A source row toned, or the last one copied: the AVX2 kernel reads up to 3 pixels past a row's end.
        let padded = UnsafeMutablePointer<UInt8>.allocate(capacity: (inWidth + 3) * 4)
        defer { padded.deallocate() }
        padded.initialize(repeating: 0, count: (inWidth + 3) * 4)
        let avx2: Int32 = kernel == .avx2 ? 1 : 0
        let narrowShift = Int32(across.bits - FixedPointWeights.fractionBits)
        let finalShift = Int32(down.bits + FixedPointWeights.fractionBits)
        var completed = true
        let output = [UInt8](unsafeUninitializedCapacity: rowLength * outHeight) { output, initialized in
            initialized = rowLength * outHeight
            image.pixels.withUnsafeBufferPointer { source in
                across.coefficients.withUnsafeBufferPointer { acrossCoefficients in
                    down.coefficients.withUnsafeBufferPointer { downCoefficients in
                        guard let pixels = source.baseAddress, let out = output.baseAddress,
                            let acrossBase = acrossCoefficients.baseAddress,
                            let downBase = downCoefficients.baseAddress
                        else { return }
                        // The next source row to narrow: rows are narrowed in order, each once.
                        var next = 0
                        for y in 0..<outHeight {
                            if y > 0, y % rowsPerCheck == 0, !shouldContinue(y) {
                                completed = false
                                return
                            }
                            let start = down.starts[y]
                            let count = down.counts[y]
                            next = max(next, start)
                            while next < start + count {
                                var row = pixels + next * inWidth * 4
                                if let matrix {
                                    matrix.apply(from: row, to: padded, count: inWidth, kernel: kernel)
                                    row = UnsafePointer(padded)
                                } else if next == image.height - 1 {
                                    padded.update(from: row, count: inWidth * 4)
                                    row = UnsafePointer(padded)
                                }
                                cflow_resample_fixed_row(
                                    row, acrossBase, across.stride, across.starts, across.counts,
                                    horizontal.outputCount, narrowShift, ring + (next % capacity) * rowLength, avx2)
                                next += 1
                            }
                            // A row narrowed `capacity` rows later takes this slot: by then no window reaches back.
                            for tap in 0..<count {
                                window[tap] = UnsafePointer(ring + (start + tap) % capacity * rowLength)
                            }
                            cflow_resample_fixed_rows(
                                window, downBase + y * down.stride, count, finalShift, rowLength,
                                out + y * rowLength, avx2)
                        }
                    }
                }
            }
        }
        return completed ? output : nil
    }
}
