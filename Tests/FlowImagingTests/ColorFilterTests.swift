import FlowImaging
import Foundation
import Testing

/// `sepia` and `noir` against floating-point references.
@Suite struct ColorFilterTests {
    static let sepiaRows: [[Double]] = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]

    /// The reference: M = I(1−k) + S·k in Double, rounded and clamped.
    static func referenceSepia(_ rgb: [Double], intensity k: Double) -> [Int] {
        (0..<3).map { row in
            let v = (0..<3).reduce(0.0) { sum, col in
                sum + ((row == col ? 1 - k : 0) + sepiaRows[row][col] * k) * rgb[col]
            }
            return min(max(Int(v.rounded()), 0), 255)
        }
    }

    @Test(arguments: [0.0, 0.25, 0.8, 1.0])
    func sepiaMatchesReference(intensity: Double) {
        let image = Fixtures.noise(width: 37, height: 19, seed: 7)
        var toned = image
        ColorMatrix.sepia(intensity: intensity).apply(to: &toned.pixels)
        var worst = 0
        for i in stride(from: 0, to: image.pixels.count, by: 4) {
            let rgb = (0..<3).map { Double(image.pixels[i + $0]) }
            let expected = Self.referenceSepia(rgb, intensity: intensity)
            for c in 0..<3 { worst = max(worst, abs(Int(toned.pixels[i + c]) - expected[c])) }
            #expect(toned.pixels[i + 3] == image.pixels[i + 3], "alpha is untouched")
        }
        #expect(worst <= 1)
    }

    @Test func sepiaOfZeroIntensityIsIdentity() {
        let image = Fixtures.gradient(width: 16, height: 16)
        #expect(ColorMatrix.sepia(intensity: 0).applied(to: image.pixels) == image.pixels)
    }

    @Test func benchmarkMatrixIsTheDocumentedOne() {
        let m = ColorMatrix.sepia(intensity: 0.8)
        let expected: [[Float]] = [[0.5144, 0.6152, 0.1512], [0.2792, 0.7488, 0.1344], [0.2176, 0.4272, 0.3048]]
        for (row, want) in zip([m.row0, m.row1, m.row2], expected) {
            for c in 0..<3 { #expect(abs(row[c] - want[c]) < 1e-5) }
        }
    }

    @Test func composedMatricesApplyInOrder() {
        let a = ColorMatrix.sepia(intensity: 0.5)
        let b = ColorMatrix((0, 1, 0), (1, 0, 0), (0, 0, 1))
        let image = Fixtures.noise(width: 9, height: 9, seed: 3)
        let twoSteps = b.applied(to: a.applied(to: image.pixels))
        let oneStep = a.followed(by: b).applied(to: image.pixels)
        #expect(zip(twoSteps, oneStep).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    @Test func noirMatchesReference() {
        func s(_ u: Double) -> Double { 1 / (1 + exp(6 * (0.5 - u))) }
        let image = Fixtures.noise(width: 41, height: 17, seed: 11)
        var bw = image
        Noir.apply(to: &bw.pixels)
        var worst = 0
        for i in stride(from: 0, to: image.pixels.count, by: 4) {
            let p = (0..<3).map { Double(image.pixels[i + $0]) }
            let luma = (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]).rounded() / 255
            let expected = Int((255 * (s(luma) - s(0)) / (s(1) - s(0))).rounded())
            #expect(bw.pixels[i] == bw.pixels[i + 1] && bw.pixels[i + 1] == bw.pixels[i + 2])
            #expect(bw.pixels[i + 3] == image.pixels[i + 3])
            worst = max(worst, abs(Int(bw.pixels[i]) - expected))
        }
        #expect(worst <= 1)
    }

    @Test func noirCurveIsAnSCurve() {
        let curve = Noir.curve
        #expect(curve[0] == 0 && curve[255] == 255)
        #expect(abs(Int(curve[128]) - 128) <= 1)
        #expect(curve[64] < 64 && curve[192] > 192, "contrast is raised")
        #expect(zip(curve, curve.dropFirst()).allSatisfy { $0 <= $1 }, "monotonic")
    }
}
