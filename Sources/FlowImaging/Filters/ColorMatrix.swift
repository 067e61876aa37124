/// A 3×3 matrix applied to the R, G, B of every pixel (alpha untouched), results rounded and clamped to 0…255.
///
/// `sepia` is one of these; so is a pending colour step deferred past a resize (see ``Image/pendingColor``):
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
        let i = identity, s = sepiaTone
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

    /// Applies the matrix in place to RGBA8 pixels.
    ///
    /// Integer fixed point (14 fractional bits): each channel is `(Σ c·v + 2¹³) >> 14`, clamped, so the result is
    /// the rounded product within a hundredth of a level. Plain loops over a raw pointer that LLVM unrolls.
    public func apply(to pixels: inout [UInt8]) {
        let scale: Float = 16384
        func fixed(_ v: Float) -> Int32 { Int32((v * scale).rounded()) }
        let c00 = fixed(row0[0]), c01 = fixed(row0[1]), c02 = fixed(row0[2])
        let c10 = fixed(row1[0]), c11 = fixed(row1[1]), c12 = fixed(row1[2])
        let c20 = fixed(row2[0]), c21 = fixed(row2[1]), c22 = fixed(row2[2])
        let half: Int32 = 8192
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var p = base
            let end = base + buffer.count
            while p < end {
                let r = Int32(p[0]), g = Int32(p[1]), b = Int32(p[2])
                let nr = (c00 &* r &+ c01 &* g &+ c02 &* b &+ half) >> 14
                let ng = (c10 &* r &+ c11 &* g &+ c12 &* b &+ half) >> 14
                let nb = (c20 &* r &+ c21 &* g &+ c22 &* b &+ half) >> 14
                p[0] = UInt8(truncatingIfNeeded: min(max(nr, 0), 255))
                p[1] = UInt8(truncatingIfNeeded: min(max(ng, 0), 255))
                p[2] = UInt8(truncatingIfNeeded: min(max(nb, 0), 255))
                p += 4
            }
        }
    }
}
