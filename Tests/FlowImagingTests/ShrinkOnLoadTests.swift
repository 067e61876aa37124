import Foundation
import Testing

@testable import FlowImaging

/// Shrink-on-load keeps more of a JPEG dense with fine detail: a reduced DCT decode drops exactly the
/// coefficients such a file is made of (see ``ConsumerAnalysis/detailedMargin``).
@Suite struct ShrinkOnLoadTests {
    /// The scale a JPEG of `image` is decoded at when consumers need 30 % of each side (0.45 with the margin).
    static func decodedScale(of image: Image) throws -> (scale: Double, bitsPerPixel: Double) {
        let jpeg = try JPEGEncoder.encode(image, quality: 90)
        let decoded = try ImageDecoder.decode(
            jpeg, source: "", keptFraction: { _, _ in 0.3 * ConsumerAnalysis.qualityMargin })
        return (decoded.decodedScale, Double(jpeg.count * 8) / Double(image.width * image.height))
    }

    @Test func aSmoothPhotoDecodesAtHalf() throws {
        let (scale, density) = try Self.decodedScale(of: Fixtures.gradient(width: 400, height: 240))
        #expect(density < ConsumerAnalysis.detailedBitsPerPixel, "a gradient compresses well: \(density) bits/px")
        #expect(scale == 0.5)
    }

    @Test func aDetailedPhotoKeepsFiveEighths() throws {
        var noise = Fixtures.noise(width: 400, height: 240, seed: 3)
        for i in stride(from: 3, to: noise.pixels.count, by: 4) { noise.pixels[i] = 255 }
        let (scale, density) = try Self.decodedScale(of: noise)
        #expect(density > ConsumerAnalysis.detailedBitsPerPixel, "noise is all detail: \(density) bits/px")
        // 0.45 × 2 / 1.5 = 0.6: the smallest M/8 scale keeping it is 5/8.
        #expect(scale == 0.625)
    }
}
