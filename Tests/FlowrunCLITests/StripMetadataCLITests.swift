import Foundation
import Testing

/// `write`'s `strip` through the binary, on JPEGs whose EXIF hides what is stripped where a reader still finds it:
/// a GPS pointer given twice, in IFD1, in the Exif sub-IFD and in the interoperability directory; serial numbers in
/// IFD0; owners and maker notes repeated; a thumbnail chain that loops. The written files' bytes are searched for
/// the coordinates' rationals and the fields' text.
@Suite struct StripMetadataCLITests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    /// The latitudes of the GPS directories, one per directory, so that each one left behind is found.
    static let latitudes: [[(Int, Int)]] = [
        [(43, 1), (28, 1), (4884, 100)], [(48, 1), (51, 1), (2403, 100)], [(35, 1), (40, 1), (5110, 100)],
        [(64, 1), (8, 1), (3141, 100)],
    ]

    /// The text of the other fields stripped, each unique so that its bytes are found wherever they are left.
    static let secrets = [
        "SERIAL-BODY-1", "SERIAL-LENS-1", "OWNER-ANN-1", "OWNER-ANN-AGAIN", "MAKERNOTE-PRIVATE-1", "MAKERNOTE-IN-IFD1",
        "THUMBNAIL-JPEG-1", "SERIAL-DNG-2", "SERIAL-BODY-2", "THUMBNAIL-JPEG-2", "THUMBNAIL-STRIP-2",
        "SERIAL-IN-IFD0-3", "MAKERNOTE-PRIVATE-3",
    ]

    static func blocks() -> [(name: String, layout: ExifLayout)] {
        typealias E = ExifLayout.Entry
        let camera = [E(0x010F, .ascii("FLOWCAM")), E(0x0110, .ascii("Model One"))]
        func gps(_ index: Int) -> ExifLayout.Part {
            .directory([E(1, .ascii("N")), E(2, .rationals(latitudes[index]))])
        }
        // The GPS pointer twice in IFD0; owners twice and a maker note in the Exif sub-IFD, another in IFD1.
        let twice = ExifLayout(
            bigEndian: false,
            parts: [
                (
                    "ifd0",
                    .directory(
                        camera + [E(0x8825, .offset("gpsA")), E(0x8825, .offset("gpsB")), E(0x8769, .offset("exif"))],
                        next: "ifd1")
                ),
                (
                    "exif",
                    .directory([
                        E(0xA431, .ascii("SERIAL-BODY-1")), E(0xA430, .ascii("OWNER-ANN-1")),
                        E(0xA430, .ascii("OWNER-ANN-AGAIN")), E(0x927C, .ascii("MAKERNOTE-PRIVATE-1")),
                        E(0xA435, .ascii("SERIAL-LENS-1")),
                    ])
                ),
                ("gpsA", gps(0)), ("gpsB", gps(1)),
                (
                    "ifd1",
                    .directory([
                        E(0x0201, .offset("thumb")), E(0x0202, .size("thumb")),
                        E(0x927C, .ascii("MAKERNOTE-IN-IFD1")),
                    ])
                ),
                ("thumb", .blob(Array("THUMBNAIL-JPEG-1".utf8))),
            ])
        // The GPS pointer in IFD1 (big-endian); a DNG serial in IFD0; IFD2's next offset back at IFD1.
        let inIFD1 = ExifLayout(
            bigEndian: true,
            parts: [
                (
                    "ifd0",
                    .directory(
                        camera + [E(0xC62F, .ascii("SERIAL-DNG-2")), E(0x8769, .offset("exif"))], next: "ifd1")
                ),
                ("exif", .directory([E(0xA431, .ascii("SERIAL-BODY-2"))])),
                (
                    "ifd1",
                    .directory(
                        [E(0x0201, .offset("thumb")), E(0x0202, .size("thumb")), E(0x8825, .offset("gps"))],
                        next: "ifd2")
                ),
                ("ifd2", .directory([E(0x0111, .offset("strip")), E(0x0117, .size("strip"))], next: "ifd1")),
                ("gps", gps(2)),
                ("thumb", .blob(Array("THUMBNAIL-JPEG-2".utf8))), ("strip", .blob(Array("THUMBNAIL-STRIP-2".utf8))),
            ])
        // The GPS pointer in the Exif sub-IFD and again in its interoperability directory; a serial in IFD0; the
        // Exif sub-IFD pointing at itself.
        let inExif = ExifLayout(
            bigEndian: false,
            parts: [
                ("ifd0", .directory(camera + [E(0x8769, .offset("exif")), E(0xA431, .ascii("SERIAL-IN-IFD0-3"))])),
                (
                    "exif",
                    .directory([
                        E(0x8825, .offset("gps")), E(0xA005, .offset("interop")), E(0x8769, .offset("exif")),
                        E(0x927C, .ascii("MAKERNOTE-PRIVATE-3")),
                    ])
                ),
                ("interop", .directory([E(0x0001, .ascii("R98")), E(0x8825, .offset("gps"))])),
                ("gps", gps(3)),
            ])
        return [("twice", twice), ("ifd1", inIFD1), ("exif", inExif)]
    }

    static func contains(_ haystack: Data, _ needle: [UInt8]) -> Bool {
        haystack.range(of: Data(needle)) != nil
    }

    @Test func strippingFindsEveryDirectoryAndLeavesNoByteOfIt() throws {
        let photo = try Fixtures.photo("seeding")
        let blocks = Self.blocks()
        for block in blocks {
            _ = try scratch.write("in/\(block.name).jpg", ExifLayout.jpeg(photo, exif: block.layout.bytes()))
        }
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.jpg" }, url: "${item}" }
              decode: { type: decode, dependsOn: read }
              gps: { type: write, dependsOn: decode, path: "gps/${item.stem}.jpg", strip: [gps] }
              rest:
                type: write
                dependsOn: decode
                path: "rest/${item.stem}.jpg"
                strip: [serial, owner, makernote, thumbnail]
            """)
        let result = try Flowrun.run(["flow.yaml", "--no-progress", "--quiet"], in: scratch.url)
        #expect(result.status == 0 && result.stderr == "", "\(result.stdout)\(result.stderr)")
        for block in blocks {
            let input = try Data(contentsOf: URL(fileURLWithPath: scratch.path("in/\(block.name).jpg")))
            let gpsOnly = try Data(contentsOf: URL(fileURLWithPath: scratch.path("gps/\(block.name).jpg")))
            let rest = try Data(contentsOf: URL(fileURLWithPath: scratch.path("rest/\(block.name).jpg")))
            let coordinates = Self.latitudes.map { block.layout.rationals($0) }
            let present = coordinates.indices.filter { Self.contains(input, coordinates[$0]) }
            #expect(!present.isEmpty, "the fixture \(block.name) holds a position")
            // No GPS directory's latitude is left, and the rest of the EXIF is kept (not dropped whole).
            let left = present.filter { Self.contains(gpsOnly, coordinates[$0]) }
            #expect(left.isEmpty, "\(block.name): GPS directories \(left) left in the file")
            #expect(Self.contains(gpsOnly, Array("FLOWCAM".utf8)), "\(block.name): the camera was kept")
            let secretsLeft = Self.secrets.filter { Self.contains(rest, Array($0.utf8)) }
            let secretsGiven = Self.secrets.filter { Self.contains(input, Array($0.utf8)) }
            #expect(!secretsGiven.isEmpty && secretsLeft == [], "\(block.name): \(secretsLeft) left in the file")
            #expect(Self.contains(rest, Array("FLOWCAM".utf8)), "\(block.name): the camera was kept")
        }
    }
}
