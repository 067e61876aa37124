import Foundation
import TestSupport
import Testing

/// Camera raw files through the binary, on DNGs made by ``DNGFixture``: `decode` → `resize` → `write` makes the
/// thumbnail (libraw developing at half size, since the resize keeps a third), and a DNG cut short fails its node
/// naming the cause, its dependents skipped and nothing written for it, while the other item goes on; `probe` reads
/// both headers; a header over the pixel budget fails its node.
@Suite struct RawCLITests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    @Test func aDNGBecomesAThumbnailAndOneCutShortFailsCleanly() throws {
        // 200×120 stored, orientation 6 (turned right): 120×200 upright.
        let shot = DNGFixture(width: 200, height: 120, orientation: 6).bytes
        _ = try scratch.write("shot.dng", Data(shot))
        _ = try scratch.write("cut.dng", Data(shot.prefix(shot.count / 2)))
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: [shot.dng, cut.dng], url: "${item}" }
              decode: { type: decode, dependsOn: read }
              thumb: { type: resize, width: 40, dependsOn: decode }
              save: { type: write, path: "out/${item.stem}.jpg", dependsOn: thumb }
              facts: { type: probe, dependsOn: read }
              note: { type: write, path: "out/${item.stem}.json", dependsOn: facts }
            """)
        let result = try Flowrun.run(["flow.yaml", "--no-progress", "--report", "run.json"], in: scratch.url)
        #expect(result.status == 1, "a corrupt image fails the run as for other formats")
        let errors = result.stdout.split(separator: "\n").filter { $0.contains(": error: ") }.joined(separator: "\n")
        #expect(
            errors == """
                flow.yaml:4:3: error: decode[cut.dng] failed: cannot decode 'cut.dng': DNG data is truncated \
                (libraw reached the end of the file) — 2 dependents skipped
                """, "\(result.stdout)\(result.stderr)")
        let report = try ReportView(scratch.path("run.json"))
        #expect(report.status("save[shot.dng]") == "succeeded")
        #expect(report.status("thumb[cut.dng]") == "skipped" && report.status("save[cut.dng]") == "skipped")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/cut.jpg")))
        let thumbnail = try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/shot.jpg")))
        let size = ShippedWorkflowTests.jpegSize(thumbnail)
        #expect(size.map { $0 == (40, 67) } == true, "\(String(describing: size))")
        // `probe` reads the header only: the cut file's is whole.
        for name in ["shot", "cut"] {
            let facts = try String(contentsOfFile: scratch.path("out/\(name).json"), encoding: .utf8)
            #expect(
                facts == """
                    {"alpha":false,"altitude":1250,"colorProfile":null,"dateTaken":"2024-06-01T14:03:22",\
                    "exposureTime":0.008,"fNumber":4,"focalLength":50,"format":"dng","height":200,"iso":200,\
                    "latitude":43.480233,"lens":null,"longitude":-2.5936,"make":"Flowrun","model":"Test DNG",\
                    "orientation":6,"source":"\(name).dng","width":120}

                    """, "\(facts)")
        }
    }

    /// A DNG of a few kilobytes whose header claims 20000×20000 pixels fails its node before libraw unpacks
    /// anything, naming the size and the budget; its dependent is skipped.
    @Test func aDNGHeaderOverThePixelBudgetFailsItsNode() throws {
        var bomb = DNGFixture()
        bomb.claimedSize = (20000, 20000)
        _ = try scratch.write("bomb.dng", Data(bomb.bytes))
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: bomb.dng }
              decode: { type: decode, dependsOn: read }
              save: { type: write, path: out/bomb.jpg, dependsOn: decode }
            """)
        let result = try Flowrun.run(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 1)
        let errors = result.stdout.split(separator: "\n").filter { $0.contains(": error: ") }.joined(separator: "\n")
        #expect(
            errors == """
                flow.yaml:4:3: error: decode failed: cannot decode 'bomb.dng': the DNG would be 20000×20000 pixels, \
                over the budget of 134217728 (raise it with FLOWRUN_MAX_PIXELS if the machine has the memory) \
                — 1 dependent skipped
                """, "\(result.stdout)\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/bomb.jpg")))
    }
}
