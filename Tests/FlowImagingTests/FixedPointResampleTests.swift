import Testing

@testable import FlowImaging

/// The fixed-point resampling of opaque images (``Resampler/resampleOpaque(_:horizontal:vertical:matrix:kernel:shouldContinue:)``)
/// against the double-precision reference, and its two kernels against each other.
@Suite struct FixedPointResampleTests {
    /// Pseudo-random colour, alpha 255: the fixed-point path, with the most ringing Lanczos can make.
    static func opaqueNoise(width: Int, height: Int, seed: UInt32) -> Image {
        var image = Fixtures.noise(width: width, height: height, seed: seed)
        for i in stride(from: 3, to: image.pixels.count, by: 4) { image.pixels[i] = 255 }
        return image
    }

    /// Reducing, enlarging, one pixel, odd windows and rows not a multiple of the vector width: within a level of
    /// the exact result everywhere.
    @Test(arguments: FilterKernel.allCases, ["lanczos", "bilinear"])
    func opaqueImagesMatchTheReference(kernel: FilterKernel, filter: String) throws {
        try #require(FilterKernel.available.contains(kernel), "this CPU cannot run \(kernel)")
        let image = Self.opaqueNoise(width: 97, height: 61, seed: 4)
        let resampleFilter = try #require(ResampleFilter(rawValue: filter))
        for (width, height) in FilterKernelTests.sizes + [(203, 131), (9, 60)] {
            let out = try #require(
                Resampler.resample(
                    image, width: width, height: height, filter: resampleFilter, matrix: nil, kernel: kernel))
            let expected = ResizeTests.reference(image, width: width, height: height, filter: filter)
            let worst = zip(out, expected).map { abs(Int($0) - $1) }.max() ?? 0
            #expect(out.count == width * height * 4)
            #expect(worst <= 1, "\(kernel) \(filter) to \(width)×\(height): off by \(worst)")
        }
    }

    /// A window thousands of taps wide gives each coefficient only a few of its 15 bits; the rounding errors are
    /// spread over the taps and largely cancel, and the residue keeps the sum exact: still within a level.
    @Test(arguments: FilterKernel.allCases)
    func veryWideWindowsStayWithinALevel(kernel: FilterKernel) throws {
        try #require(FilterKernel.available.contains(kernel), "this CPU cannot run \(kernel)")
        for (image, width, height) in [
            (Self.opaqueNoise(width: 3, height: 4000, seed: 8), 3, 1),
            (Self.opaqueNoise(width: 4000, height: 2, seed: 9), 1, 2),
        ] {
            let out = try #require(
                Resampler.resample(image, width: width, height: height, filter: .lanczos, matrix: nil, kernel: kernel))
            let expected = ResizeTests.reference(image, width: width, height: height, filter: "lanczos")
            let worst = zip(out, expected).map { abs(Int($0) - $1) }.max() ?? 0
            #expect(worst <= 1, "\(kernel) \(image.width)×\(image.height) to \(width)×\(height): off by \(worst)")
        }
    }

    /// Integer sums are exact, so the AVX2 and the portable kernel give the same bytes (the colour matrix, whose
    /// kernels round differently, is left out).
    @Test func kernelsGiveTheSameBytes() throws {
        try #require(FilterKernel.available.contains(.avx2), "this CPU cannot run avx2")
        let image = Self.opaqueNoise(width: 403, height: 251, seed: 3)
        for (width, height) in [(121, 75), (37, 250), (500, 300), (3, 2)] {
            let outputs = try FilterKernel.allCases.map {
                try #require(
                    Resampler.resample(image, width: width, height: height, filter: .lanczos, matrix: nil, kernel: $0))
            }
            let differing = zip(outputs[0], outputs[1]).filter { $0 != $1 }.count
            #expect(differing == 0, "to \(width)×\(height)")
        }
    }

    /// The coefficients of every window sum to exactly one: a flat colour stays exactly that colour, also at the
    /// extremes, where Lanczos' lobes would push a rounding error past 0 or 255.
    @Test(arguments: FilterKernel.allCases)
    func flatColourStaysExact(kernel: FilterKernel) throws {
        try #require(FilterKernel.available.contains(kernel), "this CPU cannot run \(kernel)")
        for colour: [UInt8] in [[0, 128, 255, 255], [1, 254, 77, 255]] {
            let image = Image(width: 301, height: 7, filledWith: (colour[0], colour[1], colour[2], 255))
            for (width, height) in [(90, 2), (1, 1), (1000, 20), (17, 7)] {
                let out = try #require(
                    Resampler.resample(
                        image, width: width, height: height, filter: .lanczos, matrix: nil, kernel: kernel))
                #expect(
                    out == Array((0..<width * height).map { _ in colour }.joined()), "\(colour) to \(width)×\(height)")
            }
        }
    }
}
