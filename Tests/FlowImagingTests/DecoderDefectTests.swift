import FlowImaging
import FlowKit
import FlowKitTesting
import Foundation
import TestSupport
import Testing

/// Files as they come from cameras, editors and the web: the damaged-but-readable, the unusual, and the broken
/// ones whose message must say what is wrong.
@Suite struct DecoderDefectTests {
    /// A JPEG with `count` zero bytes between its first segment (JFIF APP0) and the next marker, as old cameras
    /// and editors write them.
    static func jpegWithStrayBytes(_ count: Int = 16) throws -> (clean: Data, damaged: Data) {
        let clean = try JPEGEncoder.encode(Fixtures.gradient(width: 40, height: 24), quality: 90)
        let app0Length = Int(clean[4]) << 8 | Int(clean[5])
        let end = 4 + app0Length
        let damaged = clean.prefix(end) + Data(repeating: 0, count: count) + clean.dropFirst(end)
        return (clean, damaged)
    }

    @Test func jpegWithStrayBytesBeforeAMarkerDecodesWithAWarning() throws {
        let (clean, damaged) = try Self.jpegWithStrayBytes()
        var warnings: [String] = []
        let decoded = try ImageDecoder.decode(damaged, source: "old.jpg", warn: { warnings.append($0) })
        #expect(decoded.pixels == (try ImageDecoder.decode(clean, source: "")).pixels)
        #expect(warnings.contains { $0.contains("16 extraneous bytes before marker") }, "\(warnings)")
    }

    @Test func theWarningReachesTheNodesReportEntry() async throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        try Self.jpegWithStrayBytes().damaged.write(to: URL(fileURLWithPath: folder + "/old.jpg"))
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              fetch: { type: fetch, url: old.jpg }
              decode: { type: decode, dependsOn: fetch }
              write: { type: write, path: out.png, dependsOn: decode }
            """, registry: .standard, path: folder + "/w.yaml")
        let report = await Runner(plan: plan).run()
        #expect(report.exitCode == 0)
        let warnings = report.node("decode")?.warnings ?? []
        #expect(warnings.count == 1 && warnings[0].contains("extraneous bytes"), "\(warnings)")
        #expect(report.node("write")?.warnings == nil)
        let json = String(decoding: try report.jsonData(), as: UTF8.self)
        #expect(json.contains("\"warnings\""))
    }

    // MARK: 16-bit interlaced PNG

    /// Pseudo-random 16-bit samples, big-endian as PNG stores them.
    static func samples16(count: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0..<count).flatMap { _ -> [UInt8] in
            state = state &* 1_664_525 &+ 1_013_904_223
            return [UInt8(truncatingIfNeeded: state >> 24), UInt8(truncatingIfNeeded: state >> 16)]
        }
    }

    /// 16 → 8 bits, rounded to nearest: computed here in integers, independently of libpng.
    static func to8(_ high: UInt8, _ low: UInt8) -> UInt8 {
        let value = Int(high) << 8 | Int(low)
        let twice = value * 255 * 2 / 65535  // 2 × the exact 8-bit value, truncated
        return UInt8(twice / 2 + twice % 2)
    }

    @Test(arguments: [PNGFixtureWriter.ColorType.rgba, .rgb, .gray, .grayAlpha])
    func interlacedSixteenBitPNGDecodesEveryRow(colorType: PNGFixtureWriter.ColorType) throws {
        let (width, height) = (13, 11)  // odd sizes: every Adam7 pass has pixels, some partial
        let channels = [PNGFixtureWriter.ColorType.gray: 1, .rgb: 3, .grayAlpha: 2, .rgba: 4][colorType] ?? 1
        let samples = Self.samples16(count: width * height * channels, seed: 21)
        let rows = (0..<height).map { Array(samples[$0 * width * channels * 2..<($0 + 1) * width * channels * 2]) }
        let png = PNGFixtureWriter.png(
            width: width, height: height, bitDepth: 16, colorType: colorType, rows: rows, interlaced: true)
        let decoded = try ImageDecoder.decode(png, source: "")
        var worst = 0
        for y in 0..<height {
            for x in 0..<width {
                let base = (y * width + x) * channels * 2
                let values = (0..<channels).map { Self.to8(samples[base + 2 * $0], samples[base + 2 * $0 + 1]) }
                let expected: [UInt8]
                switch channels {
                case 1: expected = [values[0], values[0], values[0], 255]
                case 2: expected = [values[0], values[0], values[0], values[1]]
                case 3: expected = values + [255]
                default: expected = values
                }
                for c in 0..<4 { worst = max(worst, abs(Int(decoded[x, y][c]) - Int(expected[c]))) }
            }
        }
        #expect(worst == 0, "off by \(worst)")
    }

    // MARK: PNG eXIf

    @Test(arguments: [3, 6, 8], [false, true])
    func pngExifOrientationIsApplied(orientation: Int, bigEndian: Bool) throws {
        let image = Fixtures.noise(width: 5, height: 3, seed: 4)
        let rows = (0..<3).map { Array(image.pixels[$0 * 20..<($0 + 1) * 20]) }
        let tiff = ExifFixture.tiff(orientation: orientation, bigEndian: bigEndian)
        let png = PNGFixtureWriter.png(
            width: 5, height: 3, bitDepth: 8, colorType: .rgba, rows: rows, chunks: [("eXIf", tiff)])
        let decoded = try ImageDecoder.decode(png, source: "")
        let expected = image.oriented(try #require(ExifOrientation(rawValue: orientation)))
        #expect(decoded.width == expected.width && decoded.height == expected.height)
        #expect(decoded.pixels == expected.pixels)
    }

    // MARK: Messages

    @Test func pngWithADamagedSignatureSaysSo() throws {
        var png = try PNGCodec.encode(Fixtures.gradient(width: 4, height: 4))
        png.remove(at: 4)  // "\r\n" → "\n", as a text-mode transfer does
        let error = #expect(throws: ImageCodecError.self) { try ImageDecoder.decode(png, source: "") }
        #expect(error?.message.hasPrefix("damaged PNG signature") == true, "\(String(describing: error))")
    }

    @Test func truncatedPNGSaysTruncated() throws {
        let png = try PNGCodec.encode(Fixtures.noise(width: 64, height: 64))
        let error = #expect(throws: ImageCodecError.self) {
            try ImageDecoder.decode(png.prefix(png.count / 2), source: "")
        }
        #expect(
            error?.message == "PNG data is truncated (the file ends before the image does)",
            "\(String(describing: error))")
    }

    /// A marker byte pattern written into the entropy-coded data: libjpeg says "premature end of data segment",
    /// but the file is whole (it ends with EOI), so it is corrupt, not truncated.
    @Test func damagedJPEGIsNotCalledTruncated() throws {
        var jpeg = try JPEGEncoder.encode(Fixtures.noise(width: 96, height: 96), quality: 90)
        let middle = jpeg.count / 2
        jpeg[middle] = 0xFF
        jpeg[middle + 1] = 0xD9
        let error = #expect(throws: ImageCodecError.self) { try ImageDecoder.decode(jpeg, source: "") }
        #expect(error?.message.hasPrefix("corrupt JPEG data") == true, "\(String(describing: error))")
    }
}
