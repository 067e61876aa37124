import FlowKit
import Foundation
import Testing

@testable import FlowImaging

/// The encoders' knobs: AVIF `effort`, `chroma` and `lossless`, WebP `effort`.
@Suite struct EncoderKnobTests {
    /// A photo-like picture with alpha: noise over a gradient, some pixels see-through.
    private static func picture(alpha: Bool) -> Image {
        var image = Fixtures.noise(width: 64, height: 48)
        if alpha {
            for index in stride(from: 3, to: image.pixels.count, by: 12) { image.pixels[index] = 40 }
        }
        return image
    }

    private static func encode(_ image: Image, _ options: EncodeOptions) throws -> Data {
        try ImageEncoder.encode(image, options)
    }

    @Test(arguments: [false, true])
    func aLosslessAVIFGivesThePixelsBackExactly(alpha: Bool) throws {
        let image = Self.picture(alpha: alpha)
        let avif = try Self.encode(image, EncodeOptions(format: .avif, lossless: true))
        let decoded = try ImageDecoder.decode(avif, source: "lossless.avif")
        #expect(decoded.width == image.width && decoded.height == image.height)
        let mismatches = zip(decoded.pixels, image.pixels).enumerated().filter { $0.element.0 != $0.element.1 }
        let first = mismatches.prefix(8).map { "\($0.offset): \($0.element)" }
        #expect(mismatches.isEmpty, "\(mismatches.count) bytes differ, first \(first)")
    }

    @Test func aLossyAVIFDoesNotGiveThePixelsBackExactly() throws {
        let image = Self.picture(alpha: false)
        let decoded = try ImageDecoder.decode(
            try Self.encode(image, EncodeOptions(format: .avif, quality: 60)), source: "lossy.avif")
        #expect(decoded.pixels != image.pixels)
    }

    /// More effort, or full-resolution colour, makes another file, which decodes to the same size.
    @Test func avifEffortAndChromaChangeTheFile() throws {
        let image = Self.picture(alpha: false)
        let quick = try Self.encode(image, EncodeOptions(format: .avif, quality: 60, effort: 0))
        let hard = try Self.encode(image, EncodeOptions(format: .avif, quality: 60, effort: 9))
        let full = try Self.encode(image, EncodeOptions(format: .avif, quality: 60, chroma: .yuv444))
        let usual = try Self.encode(image, EncodeOptions(format: .avif, quality: 60))
        #expect(quick != hard)
        #expect(full != usual)
        for file in [quick, hard, full] {
            let decoded = try ImageDecoder.decode(file, source: "knob.avif")
            #expect(decoded.width == 64 && decoded.height == 48)
        }
    }

    @Test func webpEffortChangesTheFileAndKeepsLosslessExact() throws {
        let image = Self.picture(alpha: true)
        let quick = try Self.encode(image, EncodeOptions(format: .webp, quality: 75, effort: 0))
        let hard = try Self.encode(image, EncodeOptions(format: .webp, quality: 75, effort: 6))
        #expect(quick != hard)
        #expect(try ImageDecoder.decode(hard, source: "hard.webp").width == 64)
        let lossless = try Self.encode(image, EncodeOptions(format: .webp, lossless: true, effort: 6))
        #expect(try ImageDecoder.decode(lossless, source: "lossless.webp").pixels == image.pixels)
    }
}
