import FlowImagingBench
import FlowKit
import Foundation
import Testing

@testable import FlowImaging

/// Shrink-on-load keeps more of a JPEG dense with fine detail, except at 1/2, where it keeps the detail a thumbnail
/// shows anyway: each block's low frequencies are sampled, not averaged over 2×2 pixels (`jpeg_sampled_idct.c`).
@Suite struct ShrinkOnLoadTests {
    /// The scale a JPEG of `image` is decoded at when consumers need `resize` of each side.
    static func decodedScale(of image: Image, resize: Double = 0.3) throws -> Double {
        let jpeg = try JPEGEncoder.encode(image, quality: 90)
        let decoded = try ImageDecoder.decode(
            jpeg, source: "", keptFraction: { _, _ in resize * ConsumerAnalysis.qualityMargin })
        return decoded.decodedScale
    }

    /// Noise, all fine detail (over 8 bits per pixel as JPEG), alpha opaque.
    static var detailed: Image {
        var noise = Fixtures.noise(width: 400, height: 240, seed: 3)
        for i in stride(from: 3, to: noise.pixels.count, by: 4) { noise.pixels[i] = 255 }
        return noise
    }

    @Test func aSmoothPhotoDecodesAtHalf() throws {
        #expect(try Self.decodedScale(of: Fixtures.gradient(width: 400, height: 240)) == 0.5)
    }

    /// At ×0.3 the margin of 1.5 picks 1/2, whose sampled IDCT is good enough for dense photos too.
    @Test func aDetailedPhotoDecodesAtHalfForAThirtyPercentThumbnail() throws {
        #expect(try Self.decodedScale(of: Self.detailed) == 0.5)
    }

    /// At ×0.25 the margin of 1.5 picks 3/8 (0.375): a smooth photo decodes there, a detailed one with the margin
    /// of 2 at 1/2 (0.5).
    @Test func aDetailedPhotoKeepsMoreAtOtherScales() throws {
        #expect(try Self.decodedScale(of: Fixtures.gradient(width: 400, height: 240), resize: 0.25) == 0.375)
        #expect(try Self.decodedScale(of: Self.detailed, resize: 0.25) == 0.5)
    }

    /// For a ×0.3 thumbnail, the scale a stored decode is keyed by (`outputVariant`, from the size alone) is the
    /// one the node decodes a detailed JPEG at (when such files decoded at 5/8, the key still said 1/2).
    @Test func theStoredVariantNamesTheScaleADetailedJPEGDecodesAt() throws {
        let noise = Self.detailed
        let consumers = [consumer(SepiaTask(), then: [consumer(ResizeTask(), ["scale": .double(0.3)])])]
        let decode = DecodeOperation(context: context("decode", consumers: consumers, optimize: true))
        let jpeg = try JPEGEncoder.encode(noise, quality: 90)
        _ = run(decode, after: BytesOperation(payload: DataPayload(jpeg, source: "")))
        let decoded = try #require(decode.providedImage)
        let variant = DecodeTask().outputVariant(facts: "400x240", consumers: consumers, optimize: true)
        #expect(decoded.decodedScale == 0.5 && variant == "scale 1/2")
    }

    /// A grey picture whose every 8×8 block is one cosine of the JPEG's DCT, `k`/16 cycles per pixel across:
    /// `128 + 100 cos((2x + 1) k π / 16)`, with `x` the column within the block.
    static func cosinePicture(k: Int) -> [UInt8] {
        (0..<(64 * 32)).map { index in
            let x = index % 64 % 8
            return UInt8((128 + 100 * cos(Double((2 * x + 1) * k) * .pi / 16)).rounded())
        }
    }

    /// What a decode at `1 / shrink` should give at output column `m`: the cosine at the centre of the `shrink`
    /// pixels it covers. Averaging them instead shrinks the swing (by `cos(3π / 16)` ≈ 0.83 for `k` = 3 at 1/2,
    /// up to 16 levels; by 0.91 for `k` = 1 at 1/4, up to 7 levels).
    static func sampledCosine(k: Int, shrink: Int, atColumn m: Int) -> Int {
        let x = Double(m * shrink % 8) + Double(shrink - 1) / 2
        return Int((128 + 100 * cos((2 * x + 1) * Double(k) * .pi / 16)).rounded())
    }

    static func expectSampledCosine(_ decoded: Image, k: Int, shrink: Int) {
        #expect(decoded.width == 64 / shrink && decoded.height == 32 / shrink)
        #expect(decoded.decodedScale == 1 / Double(shrink))
        var worst = 0
        for y in 0..<decoded.height {
            for x in 0..<decoded.width {
                let p = decoded[x, y]
                let expected = sampledCosine(k: k, shrink: shrink, atColumn: x)
                worst = max(worst, (0..<3).map { abs(Int(p[$0]) - expected) }.max() ?? 0)
            }
        }
        #expect(worst <= 2, "largest difference from the sampled cosine: \(worst) levels")
    }

    @Test func halfScaleSamplesTheBlocksInsteadOfAveragingThem() throws {
        let jpeg = try JPEGEncoder.encode(
            pixels: Self.cosinePicture(k: 3), width: 64, height: 32, layout: .gray, quality: 100)
        Self.expectSampledCosine(try ImageDecoder.decode(jpeg, source: "") { _, _ in 0.5 }, k: 3, shrink: 2)
    }

    @Test func quarterScaleSamplesTheBlocksToo() throws {
        let jpeg = try JPEGEncoder.encode(
            pixels: Self.cosinePicture(k: 1), width: 64, height: 32, layout: .gray, quality: 100)
        Self.expectSampledCosine(try ImageDecoder.decode(jpeg, source: "") { _, _ in 0.25 }, k: 1, shrink: 4)
    }

    /// The same through three components with 4:2:0 chroma, written progressive: a multi-scan file, whose
    /// quantization tables libjpeg latches per component as their scans arrive.
    @Test func halfScaleSamplesAProgressiveColourJPEG() throws {
        let rgba = Self.cosinePicture(k: 3).flatMap { [$0, $0, $0, UInt8(255)] }
        let jpeg = try JPEGEncoder.encode(
            pixels: rgba, width: 64, height: 32, layout: .rgba, quality: 100, progressive: true)
        Self.expectSampledCosine(try ImageDecoder.decode(jpeg, source: "") { _, _ in 0.5 }, k: 3, shrink: 2)
    }

    /// A full decode is untouched.
    @Test func aFullDecodeIsExact() throws {
        let picture = Self.cosinePicture(k: 3)
        let jpeg = try JPEGEncoder.encode(pixels: picture, width: 64, height: 32, layout: .gray, quality: 100)
        let full = try ImageDecoder.decode(jpeg, source: "")
        var worst = 0
        for y in 0..<32 {
            for x in 0..<64 { worst = max(worst, abs(Int(full[x, y][0]) - Int(picture[y * 64 + x]))) }
        }
        #expect(worst <= 1)
    }
}
