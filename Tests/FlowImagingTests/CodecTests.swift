import Foundation
import Testing

@testable import FlowImaging

/// JPEG and PNG round trips, EXIF orientation, shrink-on-load, corrupt and truncated input.
@Suite struct CodecTests {
    // MARK: JPEG

    @Test func jpegRGBRoundTrip() throws {
        let image = Fixtures.gradient(width: 48, height: 32)
        let data = try JPEGEncoder.encode(image, quality: 95)
        #expect(ImageFormat.sniff(data) == .jpeg)
        let decoded = try ImageDecoder.decode(data, source: "mem.jpg")
        #expect(decoded.width == 48 && decoded.height == 32 && decoded.source == "mem.jpg")
        #expect(Fixtures.maxDifference(image, decoded) <= 12)
        #expect(decoded.isOpaque)
    }

    @Test func jpegDropsAlpha() throws {
        var image = Image(width: 16, height: 16, filledWith: (100, 150, 200, 40))
        image.pixels[3] = 7
        let decoded = try ImageDecoder.decode(JPEGEncoder.encode(image, quality: 90), source: "")
        #expect(decoded.isOpaque)
        #expect(Fixtures.close(decoded[5, 5], SIMD4(100, 150, 200, 255), tolerance: 3))
    }

    @Test func jpegGrayDecodesToRGBA() throws {
        let gray = (0..<(16 * 8)).map { UInt8($0 * 2) }
        let data = try JPEGEncoder.encode(pixels: gray, width: 16, height: 8, layout: .gray, quality: 100)
        let decoded = try ImageDecoder.decode(data, source: "")
        for y in 0..<8 {
            for x in 0..<16 {
                let p = decoded[x, y]
                let g = Int(gray[y * 16 + x])
                #expect(p[0] == p[1] && p[1] == p[2] && p[3] == 255)
                #expect(abs(Int(p[0]) - g) <= 3)
            }
        }
    }

    @Test func jpegCMYKDecodesLikeBrowsers() throws {
        // Adobe-inverted CMYK as Photoshop writes it: R = C·K/255.
        let cmyk = [UInt8](repeating: 0, count: 16 * 16 * 4).enumerated().map { index, _ -> UInt8 in
            [200, 100, 50, 255][index % 4]
        }
        let data = try JPEGEncoder.encode(pixels: cmyk, width: 16, height: 16, layout: .cmyk, quality: 100)
        let decoded = try ImageDecoder.decode(data, source: "")
        #expect(Fixtures.close(decoded[8, 8], SIMD4(200, 100, 50, 255), tolerance: 3))
    }

    @Test func shrinkOnLoadDecodesAtADCTScale() throws {
        let data = try JPEGEncoder.encode(Fixtures.gradient(width: 160, height: 96), quality: 90)
        let half = try ImageDecoder.decode(data, source: "") { _, _ in 0.45 }
        #expect(half.width == 80 && half.height == 48)
        #expect(half.originalWidth == 160 && half.originalHeight == 96)
        let eighth = try ImageDecoder.decode(data, source: "") { _, _ in 0.1 }
        #expect(eighth.width == 20 && eighth.height == 12)
        #expect(half.decodedScale == 0.5 && eighth.decodedScale == 0.125)
        let fiveEighths = try ImageDecoder.decode(data, source: "") { _, _ in 0.6 }
        #expect(fiveEighths.width == 100 && fiveEighths.decodedScale == 0.625)
        let full = try ImageDecoder.decode(data, source: "") { _, _ in 0.9 }
        #expect(full.width == 160 && full.decodedScale == 1)
    }

    // MARK: EXIF orientation

    /// Where quadrants A B / C D end up for each orientation (as browsers display them).
    static let expectedLayout: [Int: [Int]] = [
        1: [0, 1, 2, 3], 2: [1, 0, 3, 2], 3: [3, 2, 1, 0], 4: [2, 3, 0, 1],
        5: [0, 2, 1, 3], 6: [2, 0, 3, 1], 7: [3, 1, 2, 0], 8: [1, 3, 0, 2],
    ]

    @Test(arguments: 1...8, [false, true])
    func exifOrientationIsApplied(orientation: Int, bigEndian: Bool) throws {
        let source = Fixtures.quadrants(width: 64, height: 32)
        let jpeg = ExifFixture.jpeg(
            try JPEGEncoder.encode(source, quality: 95), orientation: orientation,
            bigEndian: bigEndian)
        #expect(jpeg.withUnsafeBytes { JPEGSegments.read($0) }.orientation.rawValue == orientation)
        let decoded = try ImageDecoder.decode(jpeg, source: "")
        let swapped = orientation >= 5
        #expect(decoded.width == (swapped ? 32 : 64) && decoded.height == (swapped ? 64 : 32))
        let w = decoded.width
        let h = decoded.height
        let probes = [(w / 4, h / 4), (3 * w / 4, h / 4), (w / 4, 3 * h / 4), (3 * w / 4, 3 * h / 4)]
        let layout = try #require(Self.expectedLayout[orientation])
        for (probe, quadrant) in zip(probes, layout) {
            #expect(
                Fixtures.close(decoded[probe.0, probe.1], Fixtures.quadrantColors[quadrant], tolerance: 12),
                "orientation \(orientation) at \(probe)")
        }
    }

    @Test func orientationAndShrinkOnLoadTogether() throws {
        let jpeg = ExifFixture.jpeg(
            try JPEGEncoder.encode(Fixtures.quadrants(width: 64, height: 32), quality: 90),
            orientation: 6, bigEndian: false)
        let decoded = try ImageDecoder.decode(jpeg, source: "") { w, h in
            #expect(w == 32 && h == 64, "the planner sees the upright size")
            return 0.5
        }
        #expect(decoded.width == 16 && decoded.height == 32)
        #expect(decoded.originalWidth == 32 && decoded.originalHeight == 64)
    }

    @Test func malformedExifIsIgnored() throws {
        var jpeg = ExifFixture.jpeg(
            try JPEGEncoder.encode(Fixtures.gradient(width: 8, height: 8), quality: 90),
            orientation: 6, bigEndian: true)
        jpeg[12] = 0x00  // break the TIFF byte-order mark
        #expect(jpeg.withUnsafeBytes { JPEGSegments.read($0) }.orientation == .up)
        #expect(try ImageDecoder.decode(jpeg, source: "").width == 8)
    }

    // MARK: PNG

    @Test(arguments: [1, 2, 3, 4])
    func pngRoundTripIsLossless(channels: Int) throws {
        let noise = Fixtures.noise(width: 13, height: 9, seed: UInt32(channels)).pixels
        let pixels = (0..<(13 * 9)).flatMap { i in (0..<channels).map { noise[i * 4 + $0] } }
        let data = try PNGCodec.encode(pixels: pixels, width: 13, height: 9, channels: channels)
        #expect(ImageFormat.sniff(data) == .png)
        let decoded = try ImageDecoder.decode(data, source: "")
        for i in 0..<(13 * 9) {
            let p = Array(decoded.pixels[i * 4..<i * 4 + 4])
            let src = Array(pixels[i * channels..<(i + 1) * channels])
            let expected: [UInt8] =
                switch channels {
                case 1: [src[0], src[0], src[0], 255]
                case 2: [src[0], src[0], src[0], src[1]]
                case 3: src + [255]
                default: src
                }
            #expect(p == expected)
        }
    }

    @Test func pngEncoderRoundTripsRGBA() throws {
        let image = Fixtures.noise(width: 10, height: 6)
        #expect(try ImageDecoder.decode(PNGCodec.encode(image), source: "").pixels == image.pixels)
        let opaque = Fixtures.gradient(width: 10, height: 6)
        #expect(try ImageDecoder.decode(PNGCodec.encode(opaque), source: "").pixels == opaque.pixels)
    }

    @Test func palettePNGWithTransparency() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
        let data = PNGFixtureWriter.png(
            width: 3, height: 1, bitDepth: 8, colorType: .palette, rows: [[0, 1, 2]],
            palette: palette, transparency: [255, 128])
        let decoded = try ImageDecoder.decode(data, source: "")
        #expect(decoded[0, 0] == SIMD4(255, 0, 0, 255))
        #expect(decoded[1, 0] == SIMD4(0, 255, 0, 128))
        #expect(decoded[2, 0] == SIMD4(0, 0, 255, 255))
    }

    @Test func sixteenBitPNGTakesTheHighByte() throws {
        // RGB 16-bit without gAMA: sRGB-encoded, as browsers assume.
        let row: [UInt8] = [0x12, 0x34, 0x80, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x40, 0x7F, 0xC0, 0x80]
        let data = PNGFixtureWriter.png(width: 2, height: 1, bitDepth: 16, colorType: .rgb, rows: [row])
        let decoded = try ImageDecoder.decode(data, source: "")
        #expect(Fixtures.close(decoded[0, 0], SIMD4(0x12, 0x80, 0xFF, 255), tolerance: 1))
        #expect(Fixtures.close(decoded[1, 0], SIMD4(0x00, 0x40, 0xC1, 255), tolerance: 1))
    }

    @Test func sixteenBitGrayAlphaAndLowBitDepthGray() throws {
        let ga = PNGFixtureWriter.png(
            width: 1, height: 1, bitDepth: 16, colorType: .grayAlpha,
            rows: [[0x80, 0x00, 0xFF, 0xFF]])
        #expect(Fixtures.close(try ImageDecoder.decode(ga, source: "")[0, 0], SIMD4(128, 128, 128, 255), tolerance: 1))
        let gray2 = PNGFixtureWriter.png(width: 4, height: 1, bitDepth: 2, colorType: .gray, rows: [[0b0001_1011]])
        let decoded = try ImageDecoder.decode(gray2, source: "")
        #expect((0..<4).map { decoded[$0, 0][0] } == [0, 85, 170, 255])
    }

    // MARK: Corrupt input

    static func sampleJPEG() throws -> Data {
        try JPEGEncoder.encode(Fixtures.gradient(width: 64, height: 64), quality: 90)
    }
    static func samplePNG() throws -> Data { try PNGCodec.encode(Fixtures.noise(width: 32, height: 32)) }

    @Test func truncatedJPEGFailsNamingTheCause() throws {
        let data = try Self.sampleJPEG()
        let error = #expect(throws: ImageCodecError.self) {
            try ImageDecoder.decode(data.prefix(data.count / 2), source: "")
        }
        #expect(error?.message.contains("truncated") == true, "\(String(describing: error))")
    }

    @Test func jpegCutInItsScanFailsAsTruncated() throws {
        let data = try JPEGEncoder.encode(Fixtures.noise(width: 128, height: 128), quality: 90)
        let error = #expect(throws: ImageCodecError.self) {
            try ImageDecoder.decode(data.prefix(data.count * 3 / 4), source: "")
        }
        #expect(error?.message.hasPrefix("JPEG data is truncated") == true, "\(String(describing: error))")
    }

    @Test(arguments: [4, 20, 40])
    func jpegCutInItsHeaderFails(length: Int) throws {
        let data = try Self.sampleJPEG()
        #expect(throws: ImageCodecError.self) { try ImageDecoder.decode(data.prefix(length), source: "") }
    }

    @Test func corruptJPEGHeaderFails() throws {
        var data = try Self.sampleJPEG()
        for i in 2..<min(200, data.count) { data[i] = 0x5A }
        let error = #expect(throws: ImageCodecError.self) { try ImageDecoder.decode(data, source: "") }
        #expect(error?.message.contains("JPEG") == true)
    }

    @Test func truncatedPNGFails() throws {
        let data = try Self.samplePNG()
        let error = #expect(throws: ImageCodecError.self) {
            try ImageDecoder.decode(data.prefix(data.count - 40), source: "")
        }
        #expect(error?.message.contains("PNG") == true)
    }

    @Test func corruptPNGFails() throws {
        var data = try Self.samplePNG()
        data[40] ^= 0xFF  // inside IDAT: CRC and zlib errors
        let error = #expect(throws: ImageCodecError.self) { try ImageDecoder.decode(data, source: "") }
        #expect(error?.message.contains("PNG") == true)
    }

    @Test(arguments: [Data(), Data("GIF89a....".utf8), Data([0x89, 0x50])])
    func unknownOrEmptyInputFails(data: Data) {
        #expect(throws: ImageCodecError.self) { try ImageDecoder.decode(data, source: "") }
    }

    @Test func formatIsSniffedNotNamed() throws {
        let png = try Self.samplePNG()
        #expect(try ImageDecoder.decode(png, source: "photo.jpg").width == 32)
        #expect(ImageFormat(fileExtension: "JPG") == .jpeg && ImageFormat(fileExtension: "gif") == nil)
    }
}
