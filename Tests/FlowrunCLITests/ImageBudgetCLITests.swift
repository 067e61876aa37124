import Foundation
import Testing

/// The pixel budget and `write`'s refusal of data in another image format, through the binary: a 41-byte header or a
/// `resize` parameter fails its node naming the size and the budget, without allocating it, and the rest goes on.
@Suite struct ImageBudgetCLITests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    /// A lossy WebP of 41 bytes whose frame header claims 16383 × 16383 pixels (1 GiB of RGBA).
    static let hugeWebP: Data = {
        let frame: [UInt8] =
            [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0xFF, 0x3F, 0xFF, 0x3F] + [UInt8](repeating: 0, count: 11)
        let body = Array("WEBP".utf8) + Array("VP8 ".utf8) + [UInt8(frame.count), 0, 0, 0] + frame + [0]
        return Data(Array("RIFF".utf8) + [UInt8(body.count), 0, 0, 0] + body)
    }()

    /// A photo of the repository's examples.
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples/photos/sunset.jpg")

    func prepare() throws {
        try Self.hugeWebP.write(to: scratch.url.appendingPathComponent("huge.webp"))
        try FileManager.default.copyItem(atPath: Self.photo.path, toPath: scratch.path("sunset.jpg"))
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              huge: { type: fetch, url: huge.webp }
              open: { type: decode, dependsOn: huge }
              photo: { type: fetch, url: sunset.jpg }
              decode: { type: decode, dependsOn: photo }
              enlarge: { type: resize, width: 65535, height: 65535, fit: fill, dependsOn: decode }
              copy: { type: write, path: out/sunset.webp, dependsOn: photo }
              thumb: { type: resize, width: 100, dependsOn: decode }
              save: { type: write, path: out/thumb.png, dependsOn: thumb }
            """)
    }

    static func budget(_ pixels: Int) -> String {
        "over the budget of \(pixels) (raise it with FLOWRUN_MAX_PIXELS if the machine has the memory)"
    }

    @Test func sizesOverTheBudgetFailTheirNodesAndTheRestGoesOn() throws {
        try prepare()
        let result = try Flowrun.run(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 1)
        let output = result.stdout + result.stderr
        let errors = output.split(separator: "\n").filter { $0.contains(": error: ") }.map(String.init).sorted()
        let expected = [
            "flow.yaml:4:3: error: open failed: cannot decode 'huge.webp': the WebP would be 16383×16383 pixels, "
                + Self.budget(134_217_728),
            "flow.yaml:7:3: error: enlarge failed: the resize output would be 65535×65535 pixels, "
                + Self.budget(134_217_728),
            "flow.yaml:8:3: error: copy failed: the data is a JPEG image but the path 'out/sunset.webp' names WebP; "
                + "write does not convert data: put a `decode` before this write to re-encode it, or write it under "
                + "a .jpeg name",
        ]
        #expect(errors.count == expected.count, "\(output)")
        for (line, wanted) in zip(errors, expected) { #expect(line == wanted) }
        #expect(FileManager.default.fileExists(atPath: scratch.path("out/thumb.png")))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/sunset.webp")))
    }

    @Test func theEnvironmentSetsTheBudget() throws {
        try prepare()
        let result = try Flowrun.run(
            ["flow.yaml", "--no-progress"], in: scratch.url, environment: ["FLOWRUN_MAX_PIXELS": "1000"])
        #expect(result.status == 1)
        let output = result.stdout + result.stderr
        #expect(
            output.contains(
                "error: decode failed: cannot decode 'sunset.jpg': the JPEG would be 1024×683 pixels, "
                    + Self.budget(1000)), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/thumb.png")))
    }
}
