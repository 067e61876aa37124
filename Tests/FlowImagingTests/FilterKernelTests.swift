import Testing

@testable import FlowImaging

/// Every filter kernel this CPU can run (the portable Swift one, and AVX2 in C where the CPU has it) against the
/// double-precision references. For resampling, on sizes that exercise the kernels' edges: odd windows, rows
/// that are not a multiple of the vector width, one-pixel outputs, enlarging.
@Suite struct FilterKernelTests {
    static let sizes = [(29, 18), (61, 40), (13, 9), (5, 3), (1, 1), (120, 80)]

    @Test(arguments: FilterKernel.allCases, ["lanczos", "bilinear"])
    func kernelMatchesTheReference(kernel: FilterKernel, filter: String) throws {
        try #require(FilterKernel.available.contains(kernel), "this CPU cannot run \(kernel)")
        let image = Fixtures.noise(width: 97, height: 61, seed: 11)
        let resampleFilter = try #require(ResampleFilter(rawValue: filter))
        for (width, height) in Self.sizes {
            let out = try #require(
                Resampler.resample(
                    image, width: width, height: height, filter: resampleFilter, matrix: nil, kernel: kernel))
            let expected = ResizeTests.reference(image, width: width, height: height, filter: filter)
            let worst = zip(out, expected).map { abs(Int($0) - $1) }.max() ?? 0
            #expect(out.count == width * height * 4)
            #expect(worst <= 1, "\(kernel) \(filter) to \(width)×\(height): off by \(worst)")
        }
    }

    /// The kernels agree on a thumbnail-sized job, colour matrix included (the deferred-sepia path).
    @Test func kernelsAgreeOnAThumbnailWithAColorMatrix() throws {
        let kernels = FilterKernel.available
        let image = Fixtures.noise(width: 403, height: 251, seed: 3)
        let outputs = try kernels.map {
            try #require(
                Resampler.resample(
                    image, width: 121, height: 75, filter: .lanczos, matrix: .sepia(intensity: 0.8), kernel: $0))
        }
        for (kernel, output) in zip(kernels, outputs).dropFirst() {
            let worst = zip(output, outputs[0]).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(kernel) differs from the portable kernel by \(worst)")
        }
    }

    @Test(arguments: FilterKernel.allCases, [0.0, 0.8, 1.0])
    func colorMatrixMatchesTheReference(kernel: FilterKernel, intensity: Double) throws {
        try #require(FilterKernel.available.contains(kernel), "this CPU cannot run \(kernel)")
        // 1,001 pixels: not a multiple of any vector width, so the kernels' tails run too.
        let image = Fixtures.noise(width: 143, height: 7, seed: 9)
        let toned = ColorMatrix.sepia(intensity: intensity).applied(to: image.pixels, kernel: kernel)
        var worst = 0
        for i in stride(from: 0, to: image.pixels.count, by: 4) {
            let rgb = (0..<3).map { Double(image.pixels[i + $0]) }
            let expected = ColorFilterTests.referenceSepia(rgb, intensity: intensity)
            for c in 0..<3 { worst = max(worst, abs(Int(toned[i + c]) - expected[c])) }
            #expect(toned[i + 3] == image.pixels[i + 3], "alpha is copied")
        }
        #expect(worst <= 1, "\(kernel) sepia \(intensity): off by \(worst)")
    }

    /// The AVX2 colour matrix computes every channel as `fma(m2, b, fma(m0, r, m1·g)) + ½`, clamped and truncated —
    /// how clang contracts its scalar tail — in every lane: the same bytes as that formula on every red and green
    /// with blue in steps of 51, so a photo toned eight pixels at a time matches one toned pixel by pixel.
    @Test func avx2ColorMatrixGivesTheBytesOfItsScalarFormula() throws {
        try #require(FilterKernel.available.contains(.avx2), "this CPU cannot run avx2")
        let matrix = ColorMatrix.sepia(intensity: 0.8)
        let blues = Array(stride(from: 0, through: 255, by: 51))
        var pixels = [UInt8](repeating: 0, count: 256 * 256 * blues.count * 4)
        for (index, blue) in blues.enumerated() {
            for rg in 0..<65_536 {
                let i = (index * 65_536 + rg) * 4
                pixels[i] = UInt8(rg & 255)
                pixels[i + 1] = UInt8(rg >> 8)
                pixels[i + 2] = UInt8(blue)
                pixels[i + 3] = UInt8(truncatingIfNeeded: rg &* 7)
            }
        }
        let toned = matrix.applied(to: pixels, kernel: .avx2)
        let rows = [matrix.row0, matrix.row1, matrix.row2]
        var mismatches = 0
        for i in stride(from: 0, to: pixels.count, by: 4) {
            let r = Float(pixels[i])
            let g = Float(pixels[i + 1])
            let b = Float(pixels[i + 2])
            for c in 0..<3 {
                let sum = (rows[c][1] * g).addingProduct(rows[c][0], r).addingProduct(rows[c][2], b) + 0.5
                if toned[i + c] != UInt8(min(max(sum, 0), 255)) { mismatches += 1 }
            }
            if toned[i + 3] != pixels[i + 3] { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// A deferred colour step gives exactly the pixels of applying it first, also where the matrix clips (full
    /// sepia pushes bright pixels past 255) next to dark ones, where a matrix moved after the resample differed by
    /// tens of levels (clipping does not commute with Lanczos' negative lobes).
    @Test(arguments: FilterKernel.allCases)
    func pendingColorGivesTheLiteralPixelsExactly(kernel: FilterKernel) throws {
        try #require(FilterKernel.available.contains(kernel), "this CPU cannot run \(kernel)")
        var image = Fixtures.noise(width: 64, height: 48, seed: 5)
        image.pixels = image.pixels.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.offset % 7 < 3 ? 250 : $0.element }
        let matrix = ColorMatrix.sepia(intensity: 1)
        let toned = Image(width: 64, height: 48, pixels: matrix.applied(to: image.pixels, kernel: kernel))
        let literal = try #require(
            Resampler.resample(toned, width: 19, height: 14, filter: .lanczos, matrix: nil, kernel: kernel))
        let deferred = try #require(
            Resampler.resample(image, width: 19, height: 14, filter: .lanczos, matrix: matrix, kernel: kernel))
        #expect(deferred == literal)
    }
}
