import Testing

@testable import FlowImaging

/// Transparency: resampling premultiplies, so hidden colour does not bleed into visible pixels.
@Suite struct AlphaTests {
    /// Transparent red beside opaque green: the red is invisible and must stay so after resampling.
    static func redUnderTransparencyBesideGreen(width: Int = 32, height: Int = 4) -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                if x < width / 2 {
                    pixels[i] = 255  // red, alpha 0
                } else {
                    pixels[i + 1] = 255
                    pixels[i + 3] = 255
                }
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    @Test(arguments: FilterKernel.allCases, ["lanczos", "bilinear"])
    func transparentColourDoesNotBleed(kernel: FilterKernel, filter: String) throws {
        try #require(FilterKernel.available.contains(kernel), "this CPU cannot run \(kernel)")
        let image = Self.redUnderTransparencyBesideGreen()
        let resampleFilter = try #require(ResampleFilter(rawValue: filter))
        let out = try #require(
            Resampler.resample(image, width: 11, height: 2, filter: resampleFilter, matrix: nil, kernel: kernel))
        var partlyVisible = 0
        for pixel in stride(from: 0, to: out.count, by: 4) where out[pixel + 3] > 0 {
            #expect(out[pixel] <= 1, "pixel \(pixel / 4) has alpha \(out[pixel + 3]) and red \(out[pixel])")
            if out[pixel + 3] < 255 { partlyVisible += 1 }
        }
        #expect(partlyVisible > 0, "the edge has partly transparent pixels")
    }

    /// `isOpaque` tests eight pixels at a time and the rest one by one: a single pixel below 255 anywhere — in any
    /// lane of a word, in the tail — makes the image not opaque.
    @Test func isOpaqueSeesAnyTransparentPixel() {
        let opaque = Image(width: 13, height: 3, filledWith: (10, 20, 30, 255))
        #expect(opaque.isOpaque)
        for pixel in 0..<(13 * 3) {
            for alpha: UInt8 in [0, 254] {
                var image = opaque
                image.pixels[pixel * 4 + 3] = alpha
                #expect(!image.isOpaque, "pixel \(pixel) with alpha \(alpha)")
            }
        }
        var colourOnly = opaque
        colourOnly.pixels[4] = 0
        #expect(colourOnly.isOpaque, "only alpha counts")
    }
}
