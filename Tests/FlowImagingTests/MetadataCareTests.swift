import FlowBasics
import FlowKit
import Foundation
import TestSupport
import Testing

@testable import FlowImaging

/// `write`'s `strip`, the orientation of ImageMagick's PNG text chunk and of XMP, `probe`, and `write`'s refusal of
/// image data under another format's name.
@Suite struct MetadataCareTests {
    /// Where the GPS latitude's first rational (43/1) sits in an EXIF block, as bytes.
    static let latitudeBytes: [UInt8] = [43, 0, 0, 0, 1, 0, 0, 0, 28, 0, 0, 0, 1, 0, 0, 0]

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.count >= needle.count
            && (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    @Test(arguments: ["a.jpg", "a.png", "a.webp"])
    func stripGPSKeepsCameraDateAndLens(path: String) throws {
        var image = Fixtures.gradient(width: 24, height: 16)
        image.metadata = ImageMetadata(exif: TIFFBuilder.cameraExif(orientation: 6))
        let data = try WriteOptionsTests.written(
            ["path": .string(path), "strip": .list([.string("gps"), .string("serial")])], image: image)
        let exif = try #require(try ImageDecoder.decode(data, source: "").metadata.exif)
        let tiff = try #require(TIFFStructure(exif))
        let ifd0 = try #require(tiff.firstIFD)
        #expect(tiff.entry(0x8825, inIFDAt: ifd0) == nil)
        let summary = ExifSummary(tiff)
        #expect(summary.make == "FUJIFILM" && summary.model == "X-T5" && summary.lens == "XF35mmF1.4 R")
        #expect(summary.dateTaken == "2024-06-01T14:03:22+02:00" && summary.iso == 400)
        #expect(summary.latitude == nil && summary.longitude == nil)
        // Nothing of the position or the serial number is left anywhere in the file.
        #expect(!Self.contains([UInt8](data), Self.latitudeBytes))
        #expect(!Self.contains([UInt8](data), Array("SERIAL-123456".utf8)))
        #expect(ExifOrientation.read(tiff: exif) == .up)
    }

    @Test(arguments: [false, true])
    func keepExifKeepsTheWholeBlock(bigEndian: Bool) throws {
        var image = Fixtures.gradient(width: 24, height: 16)
        let camera = TIFFBuilder.cameraExif(bigEndian: bigEndian)
        image.metadata = ImageMetadata(exif: camera)
        let data = try WriteOptionsTests.written(
            ["path": .string("k.jpg"), "keep": .list([.string("exif")])], image: image)
        let exif = try #require(try ImageDecoder.decode(data, source: "").metadata.exif)
        #expect(exif == camera)
        let summary = ExifSummary(try #require(TIFFStructure(exif)))
        #expect(
            abs((summary.latitude ?? 0) - 43.480233) < 0.000001 && abs((summary.longitude ?? 0) + 2.5936) < 0.000001)
    }

    @Test func strippingEveryFieldLeavesAReadableBlock() throws {
        let builder = TIFFBuilder(bigEndian: true)
        let camera = builder.structure(
            ifd0: [builder.ascii(0x010F, "Canon"), builder.ascii(0x0110, "EOS R5")],
            exif: [builder.ascii(0xA430, "Ann Owner"), builder.ascii(0x927C, "MAKERNOTE-PRIVATE")],
            gps: [builder.ascii(1, "N")],
            ifd1: [builder.long(0x0201, 0), builder.long(0x0202, 0)])
        let stripped = try #require(ExifField.strip(Set(ExifField.allCases), from: camera))
        let tiff = try #require(TIFFStructure(stripped))
        let ifd0 = try #require(tiff.firstIFD)
        #expect(tiff.entries(ofIFDAt: ifd0).map(\.tag) == [0x010F, 0x0110, 0x8769])
        #expect(tiff.nextIFD(after: ifd0) == nil)
        #expect(!Self.contains(stripped, Array("Ann Owner".utf8)) && !Self.contains(stripped, Array("MAKERNOTE".utf8)))
        #expect(ExifSummary(tiff).model == "EOS R5")
    }

    // MARK: Orientation beyond EXIF

    /// ImageMagick's `Raw profile type exif` text: a name line, the length, then the bytes in hex, 72 a line.
    static func rawProfile(_ exif: [UInt8]) -> [UInt8] {
        let bytes = ImageMetadata.exifPrefix + exif
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let lines = stride(from: 0, to: hex.count, by: 72).map { start in
            String(hex.dropFirst(start).prefix(72))
        }
        return Array(
            ("\nexif\n" + String(repeating: " ", count: 6) + "\(bytes.count)\n" + lines.joined(separator: "\n") + "\n")
                .utf8)
    }

    static func png(width: Int, height: Int, chunks: [(String, [UInt8])]) -> Data {
        let rows: [[UInt8]] = (0..<height).map { y in
            (0..<width).flatMap { x -> [UInt8] in [UInt8(x * 20), UInt8(y * 30), 0] }
        }
        return PNGFixtureWriter.png(
            width: width, height: height, bitDepth: 8, colorType: .rgb, rows: rows, chunks: chunks)
    }

    @Test(arguments: ["zTXt", "tEXt"])
    func pngRawProfileExifOrientationIsApplied(chunk: String) throws {
        let text = Self.rawProfile(ExifFixture.tiff(orientation: 6, bigEndian: false))
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let body = chunk == "zTXt" ? keyword + [0] + [UInt8](PNGFixtureWriter.zlibStored(text)) : keyword + text
        let data = Self.png(width: 5, height: 3, chunks: [(chunk, body)])
        let decoded = try ImageDecoder.decode(data, source: "")
        #expect(decoded.width == 3 && decoded.height == 5)
        #expect(decoded.metadata.exif == ExifFixture.tiff(orientation: 6, bigEndian: false))
    }

    @Test(arguments: [
        "<x:xmpmeta><rdf:Description tiff:Orientation=\"8\"/></x:xmpmeta>",
        "<x:xmpmeta><rdf:Description><tiff:Orientation>8</tiff:Orientation></rdf:Description></x:xmpmeta>",
    ])
    func xmpOrientationIsAppliedAndResetWhenKept(xmp: String) throws {
        let itxt = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(xmp.utf8)
        let data = Self.png(width: 5, height: 3, chunks: [("iTXt", itxt)])
        let decoded = try ImageDecoder.decode(data, source: "")
        #expect(decoded.width == 3 && decoded.height == 5)
        // A quarter turn anticlockwise: the top-right corner comes first.
        #expect(decoded[0, 0] == SIMD4(80, 0, 0, 255))
        let written = try WriteOptionsTests.written(
            ["path": .string("x.png"), "keep": .list([.string("xmp")])], image: decoded)
        let again = try ImageDecoder.decode(written, source: "")
        #expect(again.width == 3 && again.height == 5)
        #expect(again.metadata.xmp.flatMap(XMPOrientation.read) == ExifOrientation.up)
    }

    // MARK: probe

    @Test func probeReadsTheFactsWithoutDecoding() throws {
        let jpeg = try JPEGEncoder.encode(Fixtures.gradient(width: 40, height: 30), quality: 80)
        var body = ImageMetadata.exifPrefix + TIFFBuilder.cameraExif(orientation: 6)
        body = [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        let data = Data(jpeg.prefix(2)) + Data(body) + jpeg.dropFirst(2)
        let probed = try ImageProbe(data).json(source: "photos/a.jpg")
        let expected = """
            {"alpha":false,"altitude":1250,"colorProfile":null,"dateTaken":"2024-06-01T14:03:22+02:00",\
            "exposureTime":0.004,"fNumber":2.8,"focalLength":35,"format":"jpeg","height":40,"iso":400,\
            "latitude":43.480233,"lens":"XF35mmF1.4 R","longitude":-2.5936,"make":"FUJIFILM","model":"X-T5",\
            "orientation":6,"source":"photos/a.jpg","width":30}
            """
        #expect(String(decoding: probed, as: UTF8.self) == expected)
    }

    @Test func probeOfAPNGWithTransparencyAndAProfile() throws {
        let data = try WriteOptionsTests.written(
            ["path": .string("p.png"), "keep": .list([.string("icc")])],
            image: {
                var image = Fixtures.noise(width: 7, height: 5)
                image.metadata.icc = ColorProfile.sRGB
                return image
            }())
        let probe = try ImageProbe(data)
        #expect(probe.format == .png && probe.width == 7 && probe.height == 5 && probe.hasAlpha)
        #expect(probe.colorProfile?.contains("sRGB") == true && probe.exif == nil)
    }

    @Test func catalogueWritesJSONAndCSV() {
        let objects: [JSONValue] = [
            ["source": "a, b.jpg", "width": 3, "alpha": false, "make": .null],
            ["source": "say \"hi\".png", "width": 4, "alpha": true, "lens": "XF"],
        ]
        #expect(
            String(decoding: CatalogueOperation.csv(objects), as: UTF8.self)
                == "alpha,make,source,width,lens\r\nfalse,,\"a, b.jpg\",3,\r\ntrue,,\"say \"\"hi\"\".png\",4,XF\r\n")
        #expect(
            String(decoding: CatalogueOperation.jsonArray(objects), as: UTF8.self)
                == "[\n{\"alpha\":false,\"make\":null,\"source\":\"a, b.jpg\",\"width\":3},\n"
                + "{\"alpha\":true,\"lens\":\"XF\",\"source\":\"say \\\"hi\\\".png\",\"width\":4}\n]\n")
        #expect(String(decoding: CatalogueOperation.jsonArray([]), as: UTF8.self) == "[\n]\n")
    }

    // MARK: write refuses data of another format

    final class DataSource: FlowOperation, DataProvider, @unchecked Sendable {
        let payload: DataPayload
        init(_ bytes: Data) {
            payload = DataPayload(bytes, source: "photo.jpg")
            super.init(context: NodeContext(nodeID: "fetch", typeName: "fetch"))
        }
        override func execute() { finish(.success(payload)) }
        var providedData: DataPayload? { output(as: DataPayload.self) }
    }

    @Test func jpegDataUnderAWebPNameFailsAndWritesNothing() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let jpeg = try JPEGEncoder.encode(Fixtures.gradient(width: 8, height: 8), quality: 80)
        let op = WriteOperation(context: context("write", ["path": .string("x.webp")], directory: folder))
        let outcome = run(op, after: DataSource(jpeg))
        guard case .failure(let failure)? = outcome else {
            Issue.record("JPEG data written to x.webp: \(String(describing: outcome))")
            return
        }
        #expect(
            failure.message
                == "the data is a JPEG image but the path 'x.webp' names WebP; write does not convert data: put a "
                + "`decode` before this write to re-encode it, or write it under a .jpeg name")
        #expect(!FileManager.default.fileExists(atPath: folder + "/x.webp"))
        let same = WriteOperation(context: context("write", ["path": .string("y.jpg")], directory: folder))
        guard case .success? = run(same, after: DataSource(jpeg)) else {
            Issue.record("JPEG data to y.jpg failed")
            return
        }
        let text = WriteOperation(context: context("write", ["path": .string("list.txt")], directory: folder))
        guard case .success? = run(text, after: DataSource(Data("a\n".utf8))) else {
            Issue.record("text to list.txt failed")
            return
        }
    }
}
