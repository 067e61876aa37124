import Foundation
import Synchronization

/// A resampling filter: how much an input pixel at distance `x` (in output-pixel units) contributes.
package struct ResampleFilter: Sendable, Hashable {
    private enum Kind: Sendable, Hashable { case lanczos3, bilinear, nearest }
    private let kind: Kind

    /// Lanczos with three lobes: `sinc(x) · sinc(x / 3)` for |x| < 3. Sharp, little aliasing.
    package static let lanczos = ResampleFilter(kind: .lanczos3)
    /// The triangle filter (bilinear when enlarging, a tent average when reducing).
    package static let bilinear = ResampleFilter(kind: .bilinear)
    /// The nearest input pixel; no averaging.
    package static let nearest = ResampleFilter(kind: .nearest)

    /// The filter named in a workflow: `lanczos`, `bilinear` or `nearest`.
    package init?(name: String) {
        switch name {
        case "lanczos": self = .lanczos
        case "bilinear": self = .bilinear
        case "nearest": self = .nearest
        default: return nil
        }
    }

    private init(kind: Kind) { self.kind = kind }

    /// The half-width of the kernel at scale 1.
    var support: Double {
        switch kind {
        case .lanczos3: 3
        case .bilinear: 1
        case .nearest: 0.5
        }
    }

    var isNearest: Bool { kind == .nearest }

    /// The kernel's value at `x`.
    func weight(_ x: Double) -> Double {
        switch kind {
        case .lanczos3:
            let ax = abs(x)
            guard ax < 3 else { return 0 }
            return sinc(ax) * sinc(ax / 3)
        case .bilinear:
            let ax = abs(x)
            return ax < 1 ? 1 - ax : 0
        case .nearest:
            return x >= -0.5 && x < 0.5 ? 1 : 0
        }
    }

    private func sinc(_ x: Double) -> Double {
        guard x != 0 else { return 1 }
        let px = Double.pi * x
        return sin(px) / px
    }
}

/// Precomputed weights of one resampling direction: for every output pixel, the first input pixel it reads,
/// how many, and their normalised weights.
///
/// When reducing, the kernel is stretched by the reduction factor (support 3 becomes 3 × 3.3 = 10 input
/// pixels at scale 0.3), so every input pixel contributes and thumbnails do not alias; this is Pillow's and
/// libvips' convention, with pixel centres at `(x + 0.5) · in / out`.
struct ResampleWeights: Sendable {
    /// The number of output pixels.
    let outputCount: Int
    /// The stride of ``weights``: the most taps any output pixel has.
    let stride: Int
    /// The first input pixel of each output pixel.
    let starts: [Int]
    /// The number of input pixels of each output pixel.
    let counts: [Int]
    /// `outputCount * stride` weights; the first `counts[i]` of row `i` are used, summing to 1.
    let weights: [Float]

    /// The weights for these arguments, computed once and then reused: a batch of photos from one camera resizes
    /// the same sizes over and over, and the sines of a 2048-pixel row cost more than its resample's bookkeeping.
    static func cached(inputCount: Int, extent: Double, outputCount: Int, filter: ResampleFilter) -> ResampleWeights {
        let key = CacheKey(inputCount: inputCount, extent: extent, outputCount: outputCount, filter: filter)
        if let known = cache.withLock({ $0[key] }) { return known }
        let computed = ResampleWeights(
            inputCount: inputCount, extent: extent, outputCount: outputCount, filter: filter)
        cache.withLock { entries in
            // A few sizes recur; anything else is forgotten wholesale rather than kept without bound.
            if entries.count >= cacheCapacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = computed
        }
        return computed
    }

    private struct CacheKey: Hashable {
        var inputCount: Int
        var extent: Double
        var outputCount: Int
        var filter: ResampleFilter
    }

    private static let cacheCapacity = 64
    private static let cache = Mutex<[CacheKey: ResampleWeights]>([:])

    /// Computes the weights to resample `inputCount` pixels to `outputCount`.
    /// - Parameter extent: How many input pixels' worth of picture the output spans (defaults to `inputCount`;
    ///   less after shrink-on-load, when the last input pixel is only partly covered).
    init(inputCount: Int, extent: Double? = nil, outputCount: Int, filter: ResampleFilter) {
        precondition(inputCount > 0 && outputCount > 0)
        let scale = (extent ?? Double(inputCount)) / Double(outputCount)
        self.outputCount = outputCount
        if filter.isNearest {
            stride = 1
            starts = (0..<outputCount).map { min(Int((Double($0) + 0.5) * scale), inputCount - 1) }
            counts = [Int](repeating: 1, count: outputCount)
            weights = [Float](repeating: 1, count: outputCount)
            return
        }
        let filterScale = max(1, scale)
        let support = filter.support * filterScale
        let stride = Int(support.rounded(.up)) * 2 + 1
        var starts = [Int](repeating: 0, count: outputCount)
        var counts = [Int](repeating: 0, count: outputCount)
        var weights = [Float](repeating: 0, count: outputCount * stride)
        var row = [Double](repeating: 0, count: stride)
        for out in 0..<outputCount {
            let center = (Double(out) + 0.5) * scale
            let first = max(Int(center - support + 0.5), 0)
            let last = min(Int(center + support + 0.5), inputCount)
            let count = min(max(last - first, 1), stride)
            var total = 0.0
            for tap in 0..<count {
                let w = filter.weight((Double(first + tap) - center + 0.5) / filterScale)
                row[tap] = w
                total += w
            }
            if total == 0 {
                row[0] = 1
                total = 1
            }
            for tap in 0..<count { weights[out * stride + tap] = Float(row[tap] / total) }
            starts[out] = min(first, inputCount - 1)
            counts[out] = count
        }
        self.stride = stride
        self.starts = starts
        self.counts = counts
        self.weights = weights
    }
}
