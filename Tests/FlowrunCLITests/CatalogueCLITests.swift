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
}
