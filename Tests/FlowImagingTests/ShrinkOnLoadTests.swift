import Foundation
import Testing

@testable import FlowImaging

/// Shrink-on-load decodes every JPEG at the scale the margin asks for, and at 1/2 it keeps the detail a thumbnail
/// shows: each block's low frequencies are sampled, not averaged over 2×2 pixels (`jpeg_sampled_idct.c`).
@Suite struct ShrinkOnLoadTests {
    /// The scale a JPEG of `image` is decoded at when consumers need 30 % of each side (0.45 with the margin).
    static func decodedScale(of image: Image) throws -> Double {
        let jpeg = try JPEGEncoder.encode(image, quality: 90)
        let decoded = try ImageDecoder.decode(
            jpeg, source: "", keptFraction: { _, _ in 0.3 * ConsumerAnalysis.qualityMargin })
        return decoded.decodedScale
    }

    @Test func aSmoothPhotoDecodesAtHalf() throws {
        #expect(try Self.decodedScale(of: Fixtures.gradient(width: 400, height: 240)) == 0.5)
    }

    /// Density does not change the scale: noise, all fine detail (over 8 bits per pixel as JPEG), decodes at 1/2.
    @Test func aDetailedPhotoDecodesAtHalfToo() throws {
        var noise = Fixtures.noise(width: 400, height: 240, seed: 3)
        for i in stride(from: 3, to: noise.pixels.count, by: 4) { noise.pixels[i] = 255 }
        #expect(try Self.decodedScale(of: noise) == 0.5)
    }

    /// A grey picture whose every 8×8 block is one cosine of the JPEG's DCT, 3/16 cycles per pixel across:
    /// `128 + 100 cos((2x + 1) 3π / 16)`, with `x` the column within the block.
    static let cosinePicture: [UInt8] = (0..<(64 * 32)).map { index in
        let x = index % 64 % 8
        return UInt8((128 + 100 * cos(Double(2 * x + 1) * 3 * .pi / 16)).rounded())
    }

    /// What a decode at 1/2 should give at output column `m`: the cosine at the centre of the pixel pair it
    /// covers, `128 + 100 cos((2m + 1) 3π / 8)`. Averaging the pair instead would shrink the swing by
    /// `cos(3π / 16)` ≈ 0.83, up to 16 levels here.
    static func sampledCosine(atColumn m: Int) -> Int {
        Int((128 + 100 * cos(Double(2 * (m % 4) + 1) * 3 * .pi / 8)).rounded())
    }

    static func expectSampledCosine(_ decoded: Image) {
        #expect(decoded.width == 32 && decoded.height == 16 && decoded.decodedScale == 0.5)
        var worst = 0
        for y in 0..<decoded.height {
            for x in 0..<decoded.width {
                let p = decoded[x, y]
                worst = max(worst, (0..<3).map { abs(Int(p[$0]) - sampledCosine(atColumn: x)) }.max() ?? 0)
            }
        }
        #expect(worst <= 2, "largest difference from the sampled cosine: \(worst) levels")
    }

    @Test func halfScaleSamplesTheBlocksInsteadOfAveragingThem() throws {
        let jpeg = try JPEGEncoder.encode(
            pixels: Self.cosinePicture, width: 64, height: 32, layout: .gray, quality: 100)
        Self.expectSampledCosine(try ImageDecoder.decode(jpeg, source: "") { _, _ in 0.5 })
    }

    /// The same through three components with 4:2:0 chroma, written progressive: a multi-scan file, whose
    /// quantization tables libjpeg latches per component as their scans arrive.
    @Test func halfScaleSamplesAProgressiveColourJPEG() throws {
        let rgba = Self.cosinePicture.flatMap { [$0, $0, $0, UInt8(255)] }
        let jpeg = try JPEGEncoder.encode(
            pixels: rgba, width: 64, height: 32, layout: .rgba, quality: 100, progressive: true)
        Self.expectSampledCosine(try ImageDecoder.decode(jpeg, source: "") { _, _ in 0.5 })
    }

    /// Other scales keep libjpeg's own IDCTs, and a full decode is untouched.
    @Test func otherScalesDecodeAsBefore() throws {
        let jpeg = try JPEGEncoder.encode(
            pixels: Self.cosinePicture, width: 64, height: 32, layout: .gray, quality: 100)
        let full = try ImageDecoder.decode(jpeg, source: "")
        for y in 0..<32 {
            for x in 0..<64 { #expect(abs(Int(full[x, y][0]) - Int(Self.cosinePicture[y * 64 + x])) <= 1) }
        }
        let quarter = try ImageDecoder.decode(jpeg, source: "") { _, _ in 0.25 }
        #expect(quarter.width == 16 && quarter.decodedScale == 0.25)
    }
}
