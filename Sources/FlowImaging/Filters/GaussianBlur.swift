import CFlowKernels
import Foundation

/// A separable Gaussian blur of RGBA8 pixels, and the unsharp mask built on it.
///
/// **Definition.** The kernel has taps at whole-pixel offsets −r…r, r = ⌈3σ⌉, weights ∝ exp(−k² / 2σ²) normalised
/// to sum 1; pixels beyond the edges repeat the edge pixel (vips' `extend: copy`). It runs on premultiplied alpha
/// when the image has transparency, so hidden colours do not bleed; results are rounded once, to nearest. (vips'
/// `gaussblur` cuts its kernel by default where the weights fall below 0.2 of the centre's — 7 integer taps for σ 2,
/// an effective σ of 1.6 — and with `min_ampl` 0.005 takes the same 13 taps as this; Pillow approximates the
/// Gaussian with three box blurs, within a level or two of this on photos.)
///
/// **Speed.** Each source row is blurred horizontally once into a ring of 2r + 1 float rows; each output row is
/// then the weighted sum of the ring's rows. The loops are C (`CFlowKernels`): the taps over contiguous floats,
/// vectorised, with an AVX2+FMA build where the CPU has it, and widening and rounding rows. Memory: the ring, not a
/// full-size float copy.
enum GaussianBlur {
    /// The σ a `blur` or `sharpen` accepts: below 0.3 the kernel is a single tap; above 50 the ring of rows
    /// (2⌈3σ⌉ + 1 float rows) would take tens of megabytes for a wide photo.
    static let sigmaRange: ClosedRange<Double> = 0.3...50

    /// The 2r + 1 normalised weights for `sigma`.
    static func weights(sigma: Double) -> [Float] {
        let radius = Int((3 * sigma).rounded(.up))
        let raw = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        return raw.map { Float($0 / total) }
    }

    /// `image` blurred with `sigma`; `nil` when `shouldContinue` (asked every 16 rows) stopped it.
    static func blurred(
        _ image: Image, sigma: Double, kernel: FilterKernel = .best, shouldContinue: (Int) -> Bool
    ) -> Image? {
        let premultiplied = !image.isOpaque
        let pixels = run(
            image, sigma: sigma, premultiplied: premultiplied, kernel: kernel, shouldContinue: shouldContinue
        ) { sums, _, out, count in
            if premultiplied {
                cflow_blur_finish(sums, count, 1, out)
            } else if kernel == .avx2 {
                cflow_round_to_bytes_avx2(sums, count * 4, out)
            } else {
                cflow_blur_finish(sums, count, 0, out)
            }
        }
        return pixels.map { image.derived(width: image.width, height: image.height, pixels: $0) }
    }

    /// `image` through an unsharp mask: each colour channel `o` becomes `o + amount · (o − b)`, `b` the channel
    /// blurred with `sigma`, where |o − b| ≥ `threshold` (levels), and stays `o` elsewhere; alpha is kept.
    /// `nil` when stopped.
    static func sharpened(
        _ image: Image, sigma: Double, amount: Double, threshold: Double, kernel: FilterKernel = .best,
        shouldContinue: (Int) -> Bool
    ) -> Image? {
        let premultiplied = !image.isOpaque
        let pixels = image.pixels.withUnsafeBufferPointer { original in
            run(image, sigma: sigma, premultiplied: premultiplied, kernel: kernel, shouldContinue: shouldContinue) {
                sums, y, out, count in
                guard let base = original.baseAddress else { return }
                cflow_sharpen_finish(
                    sums, base + y * count * 4, count, premultiplied ? 1 : 0, Float(amount), Float(threshold), out)
            }
        }
        return pixels.map { image.derived(width: image.width, height: image.height, pixels: $0) }
    }

    /// Blurs `image` row by row, handing `finish` each output row's sums (RGBA floats, premultiplied if asked), its
    /// index, where its bytes go and its pixel count; `nil` when stopped.
    private static func run(
        _ image: Image, sigma: Double, premultiplied: Bool, kernel: FilterKernel,
        shouldContinue: (Int) -> Bool,
        finish: (UnsafePointer<Float>, Int, UnsafeMutablePointer<UInt8>, Int) -> Void
    ) -> [UInt8]? {
        let weights = weights(sigma: sigma)
        let radius = weights.count / 2
        let (w, h) = (image.width, image.height)
        let length = w * 4
        let avx2: Int32 = kernel == .avx2 ? 1 : 0
        let slots = min(2 * radius + 1, h)
        var ring = [Float](repeating: 0, count: slots * length)
        var padded = [Float](repeating: 0, count: (w + 2 * radius) * 4)
        var sums = [Float](repeating: 0, count: length)
        var completed = true
        let output = [UInt8](unsafeUninitializedCapacity: w * h * 4) { out, initialized in
            image.pixels.withUnsafeBufferPointer { source in
                ring.withUnsafeMutableBufferPointer { ring in
                    padded.withUnsafeMutableBufferPointer { padded in
                        sums.withUnsafeMutableBufferPointer { sums in
                            guard let src = source.baseAddress, let ringBase = ring.baseAddress,
                                let pad = padded.baseAddress, let sum = sums.baseAddress, let dst = out.baseAddress
                            else { return }
                            var loaded = 0
                            var rows = [UnsafePointer<Float>?](repeating: nil, count: weights.count)
                            for y in 0..<h {
                                if y % 16 == 15, !shouldContinue(y) {
                                    completed = false
                                    return
                                }
                                while loaded <= min(h - 1, y + radius) {
                                    cflow_widen_padded(src + loaded * length, w, radius, premultiplied ? 1 : 0, pad)
                                    cflow_gaussian_row(
                                        pad, w, weights, radius, ringBase + (loaded % slots) * length, avx2)
                                    loaded += 1
                                }
                                for k in 0..<weights.count {
                                    let row = min(max(y - radius + k, 0), h - 1)
                                    rows[k] = UnsafePointer(ringBase + (row % slots) * length)
                                }
                                cflow_weighted_rows(rows, weights, weights.count, length, sum, avx2)
                                finish(sum, y, dst + y * length, w)
                            }
                        }
                    }
                }
            }
            initialized = completed ? w * h * 4 : 0
        }
        return completed ? output : nil
    }
}
