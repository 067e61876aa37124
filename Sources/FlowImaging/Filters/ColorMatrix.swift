import CFlowKernels

/// A 3×3 matrix applied to the R, G, B of every pixel (alpha untouched), results rounded and clamped to 0…255.
///
/// `sepia` is one of these; so is a pending colour step deferred past a resize (the image's pending colour):
/// a matrix is linear, so it commutes with resampling up to rounding and clipping.
public struct ColorMatrix: Sendable, Hashable {
    /// The rows: `R' = row0 · (R, G, B)`, and so on. The fourth lane is ignored.
    public var row0: SIMD4<Float>
    /// The second row (G').
    public var row1: SIMD4<Float>
    /// The third row (B').
    public var row2: SIMD4<Float>

    /// Creates a matrix from its rows (three values each).
    public init(_ row0: (Float, Float, Float), _ row1: (Float, Float, Float), _ row2: (Float, Float, Float)) {
        self.row0 = SIMD4(row0.0, row0.1, row0.2, 0)
        self.row1 = SIMD4(row1.0, row1.1, row1.2, 0)
        self.row2 = SIMD4(row2.0, row2.1, row2.2, 0)
    }

    /// The identity.
    public static let identity = ColorMatrix((1, 0, 0), (0, 1, 0), (0, 0, 1))

    /// The classic sepia-tone matrix.
    public static let sepiaTone = ColorMatrix((0.393, 0.769, 0.189), (0.349, 0.686, 0.168), (0.272, 0.534, 0.131))

    /// The sepia matrix blended with the identity: `I * (1 - k) + S * k`.
    /// - Parameter intensity: `k`, from 0 (unchanged) to 1 (full sepia); clamped to that range.
    public static func sepia(intensity: Double) -> ColorMatrix {
        let k = Float(min(max(intensity, 0), 1))
        let i = identity
        let s = sepiaTone
        var m = ColorMatrix.identity
        m.row0 = i.row0 * (1 - k) + s.row0 * k
        m.row1 = i.row1 * (1 - k) + s.row1 * k
        m.row2 = i.row2 * (1 - k) + s.row2 * k
        return m
    }

    /// The matrix that applies `self` first and then `next`.
    public func followed(by next: ColorMatrix) -> ColorMatrix {
        // (next · self): column j of self is (row0[j], row1[j], row2[j]).
        func row(_ r: SIMD4<Float>) -> SIMD4<Float> { r[0] * row0 + r[1] * row1 + r[2] * row2 }
        var m = self
        m.row0 = row(next.row0)
        m.row1 = row(next.row1)
        m.row2 = row(next.row2)
        return m
    }

    /// The matrix applied to one pixel in floating point, unrounded (lane 3 passes alpha through).
    @inline(__always)
    func transform(_ p: SIMD4<Float>) -> SIMD4<Float> {
        let rgb = SIMD4<Float>(p[0], p[1], p[2], 0)
        return SIMD4((row0 * rgb).sum(), (row1 * rgb).sum(), (row2 * rgb).sum(), p[3])
    }

    /// Applies the matrix to RGBA8 pixels in place.
    package func apply(to pixels: inout [UInt8]) {
        pixels = applied(to: pixels)
    }

    /// The RGBA8 pixels with the matrix applied, in a new buffer (the input usually still belongs to the upstream
    /// node, so writing in place would copy it first anyway); see ``apply(from:to:count:kernel:)``.
    package func applied(to pixels: [UInt8]) -> [UInt8] {
        applied(to: pixels, kernel: .best)
    }

    /// ``applied(to:)`` with a chosen kernel (tests run every kernel the CPU has).
    func applied(to pixels: [UInt8], kernel: FilterKernel) -> [UInt8] {
        applied(to: pixels, kernel: kernel) { _ in true } ?? pixels
    }

    /// ``applied(to:)`` in batches of ``PixelBatches/size`` pixels, asking `shouldContinue` (with the pixels
    /// done) between them; `nil` when it returned `false`.
    func applied(to pixels: [UInt8], kernel: FilterKernel, shouldContinue: (_ pixelsDone: Int) -> Bool) -> [UInt8]? {
        PixelBatches.map(pixels, shouldContinue: shouldContinue) { from, to, count in
            apply(from: from, to: to, count: count, kernel: kernel)
        }
    }

    /// The matrix on `count` RGBA8 pixels from `source` to `destination` (which must not overlap): each of R, G, B
    /// becomes its row · (R, G, B), rounded and clamped; alpha is copied.
    ///
    /// One plain loop in `Float`, `min`/`max` clamps and a truncating conversion after adding ½: branch-free, which
    /// LLVM vectorises; with AVX2 and FMA the same loop runs in C, eight pixels at a time.
    func apply(
        from source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int,
        kernel: FilterKernel
    ) {
        if kernel == .avx2 {
            let m = [row0[0], row0[1], row0[2], row1[0], row1[1], row1[2], row2[0], row2[1], row2[2]]
            cflow_color_matrix_avx2(source, destination, count, m)
            return
        }
        let m00 = row0[0]
        let m01 = row0[1]
        let m02 = row0[2]
        let m10 = row1[0]
        let m11 = row1[1]
        let m12 = row1[2]
        let m20 = row2[0]
        let m21 = row2[1]
        let m22 = row2[2]
        let s = source
        let d = destination
        for i in 0..<count {
            let r = Float(s[4 * i])
            let g = Float(s[4 * i + 1])
            let b = Float(s[4 * i + 2])
            let nr = m00 * r + m01 * g + m02 * b + 0.5
            let ng = m10 * r + m11 * g + m12 * b + 0.5
            let nb = m20 * r + m21 * g + m22 * b + 0.5
            d[4 * i] = UInt8(truncatingIfNeeded: Int32(min(max(nr, 0), 255)))
            d[4 * i + 1] = UInt8(truncatingIfNeeded: Int32(min(max(ng, 0), 255)))
            d[4 * i + 2] = UInt8(truncatingIfNeeded: Int32(min(max(nb, 0), 255)))
            d[4 * i + 3] = s[4 * i + 3]
        }
    }
}
