import Foundation
import Testing

/// A `write` with `gather: true` writes every succeeded item's data, in item order, or fails saying why (images,
/// one file per image): never the first item alone. Through the built binary.
@Suite struct GatherWriteTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.writeItems(["alpha", "beta", "gamma"], in: scratch)
    }

    @Test func aGatherWriteOfDataWritesEveryItemInItemOrder() async throws {
        try scratch.write(
            "all.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              all: { type: write, gather: true, path: out/all.txt, dependsOn: read }
            """)
        let result = try await Child.runFlowrun(["all.yaml", "--no-progress", "--quiet"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            try String(contentsOfFile: scratch.path("out/all.txt"), encoding: .utf8)
                == "item alpha\nitem beta\nitem gamma\n")
    }

    @Test func aGatherWriteOfImagesFailsSayingWhy() async throws {
        for name in ["a", "b"] {
            try Fixtures.photo(Fixtures.photoNames[0]).write(to: URL(fileURLWithPath: scratch.path("in/\(name).jpg")))
        }
        try scratch.write(
            "all.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.jpg" }, url: "${item}" }
              decode: { type: decode, dependsOn: read }
              all: { type: write, gather: true, path: out/all.png, dependsOn: decode }
            """)
        let result = try await Child.runFlowrun(["all.yaml", "--no-progress", "--quiet"], in: scratch.url)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            (result.stdout + result.stderr).contains(
                "a gather write gets 2 images and one file holds one: write each item (without `gather: true`, "
                    + "path: \"out/${item.stem}.jpg\"), or encode them to data first"),
            "\(result.stdout)\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/all.png")))
    }
}
