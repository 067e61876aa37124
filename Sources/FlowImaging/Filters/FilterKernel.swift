import CFlowKernels

/// Which code runs a filter's inner loops.
///
/// Swift compiles for the baseline x86-64 (SSE2) and cannot target one function at a newer instruction set. On
/// CPUs with AVX2 and FMA, the resampling passes and the colour matrix run in C (`CFlowKernels`), compiled for
/// them: eight lanes and fused multiply-adds, about twice the throughput. Results agree with the portable
/// kernels up to float rounding (one level at most after rounding to 8 bits); the fixed-point resize of opaque
/// images gives the same bytes with either.
enum FilterKernel: Sendable, CaseIterable, CustomStringConvertible {
    /// Swift, for any CPU.
    case portable
    /// C with AVX2 and FMA; only where ``available`` lists it.
    case avx2

    /// The kernels this CPU can run.
    static let available: [FilterKernel] = cflow_has_avx2_fma() != 0 ? [.portable, .avx2] : [.portable]
    /// The fastest of them.
    static let best: FilterKernel = available.last ?? .portable

    var description: String {
        switch self {
        case .portable: "portable"
        case .avx2: "avx2"
        }
    }
}
