import FlowKit
import Foundation
import Testing

@testable import FlowImaging

/// TIFF, HEIC and AVIF, made by the tests with libtiff and libheif; the formats flowrun names but does not read; the
/// pixel budget.
@Suite struct FormatTests {
    /// Samples of a `width` × `height` RGB gradient, at `maximum` (255 or 65535) full scale.
    static func gradientSamples(width: Int, height: Int, channels: Int = 3, maximum: Int) -> [Int] {
        var samples: [Int] = []
        for y in 0..<height {
            for x in 0..<width {
                let pixel: [Int] = [
                    x * maximum / (width - 1), y * maximum / (height - 1), (x + y) * maximum / (width + height - 2),
                    maximum,
                ]
                samples += pixel.prefix(channels)
            }
        }
        return samples
    }

    /// The RGBA8 image of samples, reduced from 16 bits as libtiff reduces them ((v + 128) / 257; `scale` 257).
    static func image(width: Int, height: Int, samples: [Int], channels: Int, scale: Int) -> Image {
        var pixels: [UInt8] = []
        for i in 0..<width * height {
            for c in 0..<4 {
                pixels.append(c < channels ? UInt8((samples[i * channels + c] + scale / 2) / scale) : 255)
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    @Test(arguments: [1, 6, 8])
    func tiledSixteenBitTIFFDecodesExactlyAndUpright(orientation: Int) throws {
        let (width, height) = (40, 24)
        let samples = Self.gradientSamples(width: width, height: height, maximum: 65535)
        let data = try FormatFixtures.tiff(
            width: width, height: height, samples: samples,
            layout: .init(bitsPerSample: 16, tile: 16, orientation: orientation))
        #expect(ImageFormat.sniff(data) == .tiff)
        let decoded = try ImageDecoder.decode(data, source: "t.tif")
        let expected = Self.image(width: width, height: height, samples: samples, channels: 3, scale: 257)
            .oriented(ExifOrientation(rawValue: orientation) ?? .up)
        #expect(decoded.width == expected.width && decoded.height == expected.height)
        #expect(decoded.pixels == expected.pixels)
    }

    @Test func strippedTIFFWithUnassociatedAlphaKeepsStraightAlpha() throws {
        let (width, height) = (21, 13)
        var samples: [Int] = []
        for y in 0..<height {
            for x in 0..<width { samples += [200, 100, 50, (x * 255 / (width - 1) + y) % 256] }
        }
        let data = try FormatFixtures.tiff(
            width: width, height: height, samples: samples,
            layout: .init(samplesPerPixel: 4, rowsPerStrip: 4, extraSample: 2))
        let decoded = try ImageDecoder.decode(data, source: "a.tif")
        for i in 0..<width * height {
            let alpha = samples[i * 4 + 3]
            #expect(Int(decoded.pixels[i * 4 + 3]) == alpha, "alpha of pixel \(i)")
            // libtiff premultiplies and flowrun divides back: within the rounding of low alphas.
            guard alpha >= 32 else { continue }
            for c in 0..<3 {
                #expect(abs(Int(decoded.pixels[i * 4 + c]) - samples[i * 4 + c]) <= 4, "pixel \(i) channel \(c)")
            }
        }
    }

    @Test func multiPageTIFFDecodesTheFirstPage() throws {
        let samples = Self.gradientSamples(width: 9, height: 7, maximum: 255)
        let data = try FormatFixtures.tiff(
            width: 9, height: 7, samples: samples, layout: .init(), pages: [(30, 20), (5, 5)])
        let decoded = try ImageDecoder.decode(data, source: "pages.tif")
        #expect(decoded.width == 9 && decoded.height == 7)
        #expect(decoded.pixels == Self.image(width: 9, height: 7, samples: samples, channels: 3, scale: 1).pixels)
    }

    @Test func truncatedTIFFFailsNamingTheFormat() throws {
        let samples = Self.gradientSamples(width: 64, height: 64, maximum: 255)
        let data = try FormatFixtures.tiff(width: 64, height: 64, samples: samples, layout: .init(rowsPerStrip: 64))
        #expect(throws: ImageCodecError.self) { try ImageDecoder.decode(data.prefix(200), source: "") }
        do {
            _ = try ImageDecoder.decode(data.prefix(data.count / 3), source: "")
            Issue.record("a third of a TIFF decoded")
        } catch {
            #expect(error.message.contains("TIFF"), "\(error.message)")
        }
    }

    /// The mean absolute difference of the colour channels.
    static func meanDifference(_ a: Image, _ b: Image) -> Double {
        var total = 0
        for i in stride(from: 0, to: a.pixels.count, by: 4) {
            for c in 0..<3 { total += abs(Int(a.pixels[i + c]) - Int(b.pixels[i + c])) }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }

    @Test func heicMadeByLibheifDecodesCloseToItsSource() throws {
        let source = Fixtures.gradient(width: 64, height: 48)
        let data = try FormatFixtures.heic(source)
        #expect(ImageFormat.sniff(data) == .heic)
        let decoded = try ImageDecoder.decode(data, source: "a.heic")
        #expect(decoded.width == 64 && decoded.height == 48)
        #expect(Self.meanDifference(decoded, source) < 3, "\(Self.meanDifference(decoded, source))")
    }

    @Test func avifWrittenByWriteDecodesCloseWithAlphaAndQualityMatters() throws {
        var source = Fixtures.gradient(width: 64, height: 48)
        for i in stride(from: 3, to: source.pixels.count, by: 4) {
            source.pixels[i] = i < source.pixels.count / 2 ? 255 : 128
        }
        let high = try WriteOptionsTests.written(["path": .string("h.avif"), "quality": .int(90)], image: source)
        let low = try WriteOptionsTests.written(["path": .string("l.avif"), "quality": .int(10)], image: source)
        #expect(ImageFormat.sniff(high) == .avif && low.count < high.count)
        let decoded = try ImageDecoder.decode(high, source: "h.avif")
        #expect(decoded.width == 64 && decoded.height == 48)
        #expect(Self.meanDifference(decoded, source) < 3, "\(Self.meanDifference(decoded, source))")
        let alpha = stride(from: 3, to: decoded.pixels.count, by: 4).map { Int(decoded.pixels[$0]) }
        let sourceAlpha = stride(from: 3, to: source.pixels.count, by: 4).map { Int(source.pixels[$0]) }
        #expect(zip(alpha, sourceAlpha).allSatisfy { abs($0 - $1) <= 3 })
    }

    @Test func avifKeepsTheExifAskedForWithoutGPS() throws {
        var image = Fixtures.gradient(width: 32, height: 24)
        image.metadata = ImageMetadata(exif: TIFFBuilder.cameraExif(orientation: 1))
        let data = try WriteOptionsTests.written(
            ["path": .string("e.avif"), "strip": .list([.string("gps")])], image: image)
        let exif = try #require(data.withUnsafeBytes { try? HEIFFile($0, format: .avif).metadata.exif })
        let summary = ExifSummary(try #require(TIFFStructure(exif)))
        #expect(summary.make == "FUJIFILM" && summary.lens == "XF35mmF1.4 R" && summary.latitude == nil)
    }

    // MARK: Formats named, not read

    /// A TIFF file's first bytes with IFD0 holding `entries`.
    static func tiffHead(_ entries: (TIFFBuilder) -> [TIFFBuilder.Entry], bigEndian: Bool = false) -> [UInt8] {
        let builder = TIFFBuilder(bigEndian: bigEndian)
        return builder.structure(ifd0: entries(builder)) + [UInt8](repeating: 0, count: 64)
    }

    /// Formats flowrun names instead of decoding, and raw files libraw cannot open (these heads hold a raw file's
    /// first directory and nothing else): each with its message.
    static let named: [(bytes: [UInt8], message: String)] = {
        let raw =
            "libraw \(CodecVersions.libraw) cannot open (Unsupported file format or not RAW file); develop it to TIFF "
            + "or JPEG first (e.g. a `command` running dcraw_emu, darktable-cli or rawtherapee-cli)"
        let convert = "convert it to JPEG, PNG, WebP, AVIF or TIFF first (e.g. with a `command`)"
        var cr2 = tiffHead { [$0.ascii(0x010F, "Canon")] }
        cr2[8] = 0x43
        cr2[9] = 0x52
        let cases: [([UInt8], String)] = [
            (cr2, "this is a Canon CR2 raw file \(raw)"),
            (
                tiffHead { [$0.ascii(0x010F, "NIKON CORPORATION"), $0.long(0x00FE, 1)] },
                "this is a Nikon NEF raw file \(raw)"
            ),
            (
                tiffHead({ [$0.ascii(0x010F, "SONY"), $0.long(0x014A, 100)] }, bigEndian: true),
                "this is a Sony ARW raw file \(raw)"
            ),
            (
                tiffHead {
                    [
                        $0.ascii(0x010F, "Leica"),
                        TIFFBuilder.Entry(tag: 0xC612, type: 1, count: 4, bytes: [1, 4, 0, 0]),
                    ]
                }, "this is a DNG raw file \(raw)"
            ),
            (Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0], "this is a GIF image; \(convert)"),
            (Array("8BPS".utf8) + [0, 1, 0, 0, 0, 0, 0, 0], "this is a Photoshop document (PSD); \(convert)"),
            ([0xFF, 0x0A, 0xFA, 0x7F, 0x01], "this is a JPEG XL image; \(convert)"),
            (Array("BM".utf8) + [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0], "this is a BMP image; \(convert)"),
            (
                [0, 0, 0, 0x18] + Array("ftypcrx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8),
                // An `ftyp` box and nothing else: libraw reads past the end.
                "CR3 data is truncated or its header is corrupt (libraw: Input/output error)"
            ),
            (
                Array("\n<!DOCTYPE html><html><body>Not found</body></html>".utf8),
                "this is an HTML page, not an image; did the URL answer with an error or a login page?"
            ),
            (
                [1, 2, 3, 4, 5],
                "not an image flowrun reads (JPEG, PNG, WebP, AVIF, HEIC, TIFF or camera raw); it starts with 01 02 03 04"
            ),
        ]
        return cases.map { (bytes: $0.0, message: $0.1) }
    }()

    @Test(arguments: 0..<named.count)
    func formatsFlowrunDoesNotReadAreNamed(_ index: Int) {
        let (bytes, message) = Self.named[index]
        #expect(throws: ImageCodecError(message)) { try ImageDecoder.decode(Data(bytes), source: "") }
    }

    @Test func aTIFFFromACameraMakerThatIsNoRawFileIsATIFF() throws {
        // A scanner's TIFF names its maker but is neither a preview nor has sub-directories.
        let head = Self.tiffHead { [$0.ascii(0x010F, "NIKON CORPORATION")] }
        #expect(ImageFormat.sniff(head) == .tiff)
    }

    // MARK: Pixel budget

    /// A 41-byte lossy WebP whose frame header claims 16383 × 16383 pixels (1 GiB of RGBA).
    static let hugeWebP: [UInt8] = {
        var vp8: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0xFF, 0x3F, 0xFF, 0x3F]
        vp8 += [UInt8](repeating: 0, count: 11)
        let chunk = Array("VP8 ".utf8) + [UInt8(vp8.count), 0, 0, 0] + vp8 + [0]
        let body = Array("WEBP".utf8) + chunk
        return Array("RIFF".utf8) + [UInt8(body.count), 0, 0, 0] + body
    }()

    @Test func aWebPHeaderOverTheBudgetFailsBeforeAllocating() throws {
        #expect(Self.hugeWebP.count <= 48)
        #expect(
            throws: ImageCodecError(
                "the WebP would be 16383×16383 pixels, over the budget of \(PixelBudget.defaultMaximum) "
                    + "(raise it with FLOWRUN_MAX_PIXELS if the machine has the memory)")
        ) { try ImageDecoder.decode(Data(Self.hugeWebP), source: "") }
    }

    @Test func resizingPastTheBudgetFailsNamingTheNode() {
        let op = ResizeOperation(
            context: context("resize", ["width": .int(65535), "height": .int(65535), "fit": .string("fill")]))
        let outcome = run(op, after: ImageSourceOperation(Fixtures.gradient(width: 2, height: 2)))
        guard case .failure(let failure)? = outcome else {
            Issue.record("resize to 65535×65535 gave \(String(describing: outcome))")
            return
        }
        #expect(
            failure.message
                == "the resize output would be 65535×65535 pixels, over the budget of 134217728 "
                + "(raise it with FLOWRUN_MAX_PIXELS if the machine has the memory)")
    }

    @Test func theBudgetIsReadFromTheEnvironment() {
        #expect(PixelBudget.maximum(environment: nil) == .success(1 << 27))
        #expect(PixelBudget.maximum(environment: " 1000 ") == .success(1000))
        #expect(
            PixelBudget.maximum(environment: "lots")
                == .failure(ImageCodecError("FLOWRUN_MAX_PIXELS='lots' is not a positive whole number of pixels")))
        #expect(throws: ImageCodecError.self) {
            try PixelBudget.check(width: 40, height: 30, making: "x", maximum: 1199)
        }
        #expect(throws: Never.self) { try PixelBudget.check(width: 40, height: 30, making: "x", maximum: 1200) }
        #expect(throws: ImageCodecError.self) {
            try PixelBudget.check(width: Int.max, height: 3, making: "x", maximum: Int.max)
        }
    }
}
