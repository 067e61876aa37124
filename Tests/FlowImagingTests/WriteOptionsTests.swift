import FlowKit
import Foundation
import TestSupport
import Testing

@testable import FlowImaging

/// `write`'s options: WebP (lossy, lossless, alpha), progressive JPEG, the background under transparency for JPEG,
/// and the metadata it keeps.
@Suite struct WriteOptionsTests {
    /// Writes `image` with `parameters` into a fresh folder and returns the file's bytes.
    static func written(_ parameters: [String: Value], image: Image) throws -> Data {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let (_, outcome) = WriteTests.write(parameters, image: image, in: folder)
        guard case .success? = outcome else { throw WriteFailed(outcome: "\(String(describing: outcome))") }
        let path = try #require(parameters["path"]?.stringValue)
        return try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path))
    }

    struct WriteFailed: Error { var outcome: String }

    // MARK: WebP

    @Test func losslessWebPKeepsEveryPixelAndAlpha() throws {
        let image = Fixtures.noise(width: 37, height: 23, seed: 8)
        let data = try Self.written(["path": .string("a.webp"), "lossless": .bool(true)], image: image)
        #expect(ImageFormat.sniff(data) == .webp)
        let decoded = try ImageDecoder.decode(data, source: "")
        // libwebp may change the colour under fully transparent pixels (it is invisible); everything else is exact.
        for i in stride(from: 0, to: image.pixels.count, by: 4) where image.pixels[i + 3] > 0 {
            #expect(Array(decoded.pixels[i..<i + 4]) == Array(image.pixels[i..<i + 4]), "pixel \(i / 4)")
        }
        let alpha = { (pixels: [UInt8]) in stride(from: 3, to: pixels.count, by: 4).map { pixels[$0] } }
        #expect(alpha(decoded.pixels) == alpha(image.pixels))
    }

    @Test func lossyWebPIsCloseAndQualityMatters() throws {
        let image = Fixtures.gradient(width: 64, height: 48)
        let high = try Self.written(["path": .string("h.webp"), "quality": .int(95)], image: image)
        let low = try Self.written(["path": .string("l.webp"), "quality": .int(5)], image: image)
        #expect(low.count < high.count)
        let decoded = try ImageDecoder.decode(high, source: "")
        #expect(decoded.width == 64 && decoded.height == 48 && decoded.isOpaque)
        #expect(Fixtures.maxDifference(image, decoded) <= 16)
    }

    @Test func truncatedWebPSaysTruncated() throws {
        let data = try WebPCodec.encode(Fixtures.noise(width: 64, height: 64), quality: 80, lossless: false)
        let error = #expect(throws: ImageCodecError.self) {
            try ImageDecoder.decode(data.prefix(data.count / 2), source: "")
        }
        #expect(error?.message.hasPrefix("WebP data is truncated") == true, "\(String(describing: error))")
    }

    // MARK: JPEG

    @Test func progressiveJPEGHasAProgressiveFrame() throws {
        let image = Fixtures.gradient(width: 64, height: 48)
        let progressive = try Self.written(["path": .string("p.jpg"), "progressive": .bool(true)], image: image)
        let baseline = try Self.written(["path": .string("b.jpg")], image: image)
        func hasMarker(_ data: Data, _ marker: UInt8) -> Bool {
            zip(data, data.dropFirst()).contains { $0 == 0xFF && $1 == marker }
        }
        #expect(hasMarker(progressive, 0xC2) && !hasMarker(progressive, 0xC0), "SOF2, not SOF0")
        #expect(hasMarker(baseline, 0xC0))
        let decoded = try ImageDecoder.decode(progressive, source: "")
        #expect(Fixtures.maxDifference(decoded, try ImageDecoder.decode(baseline, source: "")) <= 3)
    }

    /// Red at alpha 0 (invisible) and blue at alpha 128: a JPEG shows the background, and half-blue over it.
    static let halfTransparent: Image = {
        var image = Image(width: 16, height: 16, filledWith: (255, 0, 0, 0))
        let blue: [UInt8] = [0, 0, 255, 128]
        for y in 8..<16 {
            for x in 0..<16 { image.pixels.replaceSubrange((y * 16 + x) * 4..<(y * 16 + x) * 4 + 4, with: blue) }
        }
        return image
    }()

    @Test(arguments: [(nil, SIMD4<UInt8>(255, 255, 255, 255)), ("#204060", SIMD4(0x20, 0x40, 0x60, 255))])
    func jpegCompositesTransparencyOverTheBackground(background: String?, expected: SIMD4<UInt8>) throws {
        var parameters: [String: Value] = ["path": .string("c.jpg"), "quality": .int(100)]
        if let background { parameters["background"] = .string(background) }
        let decoded = try ImageDecoder.decode(try Self.written(parameters, image: Self.halfTransparent), source: "")
        #expect(Fixtures.close(decoded[3, 3], expected, tolerance: 3), "got \(decoded[3, 3]), not the hidden red")
        // Blue at alpha 128 over the background: c·128/255 + background·127/255.
        func mix(_ color: Int, _ back: UInt8) -> UInt8 { UInt8((color * 128 + Int(back) * 127 + 127) / 255) }
        let half = SIMD4<UInt8>(mix(0, expected[0]), mix(0, expected[1]), mix(255, expected[2]), 255)
        #expect(Fixtures.close(decoded[3, 12], half, tolerance: 4), "got \(decoded[3, 12]), expected \(half)")
    }

    @Test func pngKeepsAlphaExactly() throws {
        let decoded = try ImageDecoder.decode(
            try Self.written(["path": .string("t.png")], image: Self.halfTransparent), source: "")
        #expect(decoded.pixels == Self.halfTransparent.pixels)
    }

    // MARK: Metadata

    static func tagged() throws -> Image {
        var image = Fixtures.gradient(width: 20, height: 10)
        image.metadata = ImageMetadata(
            exif: ExifFixture.tiff(orientation: 6, bigEndian: true), icc: ColorProfile.sRGB,
            xmp: Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8))
        return image
    }

    @Test func nothingIsKeptByDefault() throws {
        let data = try Self.written(["path": .string("n.jpg")], image: try Self.tagged())
        #expect(data.withUnsafeBytes { JPEGSegments.read($0) } == ImageMetadata())
    }

    @Test func jpegKeepsWhatIsAskedWithTheOrientationReset() throws {
        let image = try Self.tagged()
        let data = try Self.written(
            ["path": .string("k.jpg"), "keep": .list([.string("exif"), .string("icc"), .string("xmp")])], image: image)
        let kept = data.withUnsafeBytes { JPEGSegments.read($0) }
        #expect(kept.orientation == .up, "the pixels are upright already")
        #expect(kept.exif?.count == image.metadata.exif?.count)
        #expect(kept.icc == ColorProfile.sRGB)
        #expect(kept.xmp == image.metadata.xmp)
        let decoded = try ImageDecoder.decode(data, source: "")
        #expect(decoded.width == 20 && decoded.height == 10, "read back, it is not turned again")
        let onlyXMP = try Self.written(["path": .string("x.jpg"), "keep": .list([.string("xmp")])], image: image)
        #expect(onlyXMP.withUnsafeBytes { JPEGSegments.read($0) } == ImageMetadata(xmp: image.metadata.xmp))
    }

    @Test func pngKeepsExifAndXMP() throws {
        let image = try Self.tagged()
        let data = try Self.written(
            ["path": .string("k.png"), "keep": .list([.string("exif"), .string("xmp")])], image: image)
        let chunks = data.withUnsafeBytes { PNGChunks($0) }
        #expect(chunks.exif.flatMap { ExifOrientation.read(tiff: $0) } == .up)
        #expect(chunks.xmp == image.metadata.xmp)
        #expect(try ImageDecoder.decode(data, source: "").pixels == image.pixels)
    }

    /// The chunk types of a PNG file, in order.
    static func chunkTypes(_ png: Data) -> [String] {
        let bytes = [UInt8](png)
        var types: [String] = []
        var at = 8
        while at + 12 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            types.append(String(decoding: bytes[at + 4..<at + 8], as: UTF8.self))
            at += 12 + length
        }
        return types
    }

    @Test func pngKeepsTheProfileInAnICCPChunkInsteadOfSRGB() throws {
        let image = try Self.tagged()
        let plain = try Self.written(["path": .string("p.png")], image: image)
        #expect(Self.chunkTypes(plain).contains("sRGB"), "untagged output says sRGB with libpng's chunk")
        let data = try Self.written(["path": .string("k.png"), "keep": .list([.string("icc")])], image: image)
        let types = Self.chunkTypes(data)
        #expect(types.prefix(2) == ["IHDR", "iCCP"], "\(types)")
        #expect(!types.contains("sRGB") && !types.contains("gAMA") && !types.contains("cHRM"), "\(types)")
        let chunks = data.withUnsafeBytes { PNGChunks($0) }
        let iccp = try #require(chunks.iccp)
        #expect(iccp.starts(with: Array("ICC profile".utf8) + [0, 0]), "name, terminator, zlib method")
        #expect(chunks.profile == ColorProfile.sRGB, "the chunk inflates to the profile's exact bytes")
        let decoded = try ImageDecoder.decode(data, source: "")
        #expect(decoded.pixels == image.pixels, "libpng reads the file; an sRGB profile changes no pixel")
        #expect(decoded.metadata.icc == ColorProfile.sRGB)
    }

    @Test(arguments: [false, true])
    func webPKeepsExifICCAndXMP(lossless: Bool) throws {
        var image = try Self.tagged()
        image.pixels[3] = 100  // some alpha, so the container says so
        let data = try Self.written(
            [
                "path": .string("k.webp"), "lossless": .bool(lossless),
                "keep": .list([.string("exif"), .string("icc"), .string("xmp")]),
            ], image: image)
        let kept = data.withUnsafeBytes { RIFFChunks($0).metadata }
        #expect(kept.orientation == .up && kept.exif?.count == image.metadata.exif?.count)
        #expect(kept.icc == ColorProfile.sRGB)
        #expect(kept.xmp == image.metadata.xmp)
        let decoded = try ImageDecoder.decode(data, source: "")
        #expect(decoded.width == 20 && decoded.height == 10 && decoded[0, 0][3] == 100)
        #expect(decoded.metadata.xmp == image.metadata.xmp)
    }
}
