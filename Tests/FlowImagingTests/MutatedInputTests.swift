import Foundation
import Testing

@testable import FlowImaging

/// Damaged TIFF files and EXIF blocks, made by flipping bytes of good ones with a fixed sequence: the decoder, the
/// probe and the EXIF stripping either succeed or throw, never crash, and what decodes has the size it says.
@Suite struct MutatedInputTests {
    /// `count` copies of `bytes`, each with a few bytes replaced (positions and values from a fixed sequence).
    static func mutations(of bytes: [UInt8], count: Int, seed: UInt32) -> [[UInt8]] {
        var state = seed
        func next() -> Int {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int(state >> 8)
        }
        return (0..<count).map { _ in
            var copy = bytes
            for _ in 0..<(1 + next() % 4) { copy[next() % copy.count] = UInt8(truncatingIfNeeded: next()) }
            return next() % 5 == 0 ? Array(copy.prefix(next() % copy.count)) : copy
        }
    }

    @Test(arguments: [false, true])
    func damagedTIFFsDecodeOrThrow(tiled: Bool) throws {
        let samples = FormatTests.gradientSamples(width: 37, height: 29, maximum: 65535)
        let good = try FormatFixtures.tiff(
            width: 37, height: 29, samples: samples, layout: .init(bitsPerSample: 16, tile: tiled ? 16 : nil))
        var decoded = 0
        for damaged in Self.mutations(of: [UInt8](good), count: 300, seed: tiled ? 7 : 3) {
            _ = try? ImageProbe(Data(damaged))
            if let image = try? ImageDecoder.decode(Data(damaged), source: "") {
                #expect(image.pixels.count == image.width * image.height * 4)
                decoded += 1
            }
        }
        #expect(decoded > 0, "some damage is harmless (a changed sample)")
    }

    @Test func damagedHEICsDecodeOrThrow() throws {
        let good = try FormatFixtures.heic(Fixtures.gradient(width: 40, height: 24))
        for damaged in Self.mutations(of: [UInt8](good), count: 200, seed: 5) {
            _ = try? ImageProbe(Data(damaged))
            if let image = try? ImageDecoder.decode(Data(damaged), source: "") {
                #expect(image.pixels.count == image.width * image.height * 4)
            }
        }
    }

    @Test func damagedExifIsStrippedOrDroppedAndProbed() {
        let good = TIFFBuilder.cameraExif(bigEndian: true, orientation: 3)
        for damaged in Self.mutations(of: good, count: 2000, seed: 11) {
            _ = TIFFStructure(damaged).map(ExifSummary.init)
            if let stripped = ExifField.strip(Set(ExifField.allCases), from: damaged) {
                #expect(stripped.count == damaged.count)
            }
        }
    }
}
