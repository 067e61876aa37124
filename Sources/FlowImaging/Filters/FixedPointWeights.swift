/// ``ResampleWeights`` as 16-bit integers scaled by 2^``bits``, for the fixed-point passes of ``Resampler``.
///
/// `bits` is the most precision the sums allow: every coefficient must fit an `Int16` (the AVX2 kernels multiply
/// pairs with `vpmaddwd`), and a window's sum over the largest input must fit an `Int32` with room for rounding.
/// Each window's coefficients are rounded, then the largest takes up the rounding residue, so they sum to exactly
/// 2^`bits`: a flat area stays exactly flat.
struct FixedPointWeights {
    /// The fractional bits of the 16-bit values between the two passes (a 64th of a level): rounding them costs
    /// far less than a level, and the widest overshoot of Lanczos' lobes (−0.3 … 1.3 × 255) still fits.
    static let fractionBits = 6

    /// The scale of ``coefficients``: a weight `w` is `w · 2^bits`.
    let bits: Int
    /// The stride of ``coefficients``: the most taps any output has, rounded up to the multiple asked for.
    let stride: Int
    /// The first input of each output.
    let starts: [Int]
    /// The number of inputs of each output.
    let counts: [Int]
    /// `outputCount * stride` coefficients; those past a window's count are 0.
    let coefficients: [Int16]

    /// Converts `weights`.
    /// - Parameters:
    ///   - strideMultiple: What ``stride`` is rounded up to (the AVX2 horizontal kernel reads taps four at a time).
    ///   - largestInput: The largest magnitude an input can have.
    init(_ weights: ResampleWeights, strideMultiple: Int, largestInput: Int) {
        var largest: Float = 0
        var widest: Float = 0
        for out in 0..<weights.outputCount {
            var total: Float = 0
            for tap in 0..<weights.counts[out] {
                let magnitude = abs(weights.weights[out * weights.stride + tap])
                largest = max(largest, magnitude)
                total += magnitude
            }
            widest = max(widest, total)
        }
        // Room below Int16.max for the residue, and below Int32.max for the rounding half (at most 2^26).
        var bits = 20
        while bits > 8,
            Float(1 << bits) * largest > 32_000 || Float(1 << bits) * widest * Float(largestInput) > 1.9e9
        {
            bits -= 1
        }
        let stride = (weights.stride + strideMultiple - 1) / strideMultiple * strideMultiple
        let one = Float(1 << bits)
        var coefficients = [Int16](repeating: 0, count: weights.outputCount * stride)
        for out in 0..<weights.outputCount {
            var sum = 0
            var peak = 0
            for tap in 0..<weights.counts[out] {
                let weight = weights.weights[out * weights.stride + tap]
                let value = Int((weight * one).rounded())
                coefficients[out * stride + tap] = Int16(clamping: value)
                sum += value
                if weight > weights.weights[out * weights.stride + peak] { peak = tap }
            }
            let index = out * stride + peak
            coefficients[index] = Int16(clamping: Int(coefficients[index]) + (1 << bits) - sum)
        }
        self.bits = bits
        self.stride = stride
        self.starts = weights.starts
        self.counts = weights.counts
        self.coefficients = coefficients
    }
}
