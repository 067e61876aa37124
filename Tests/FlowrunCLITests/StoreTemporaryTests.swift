import Foundation
import Testing

/// The temporaries a write killed by SIGKILL leaves (`.flowrun-NAME.XXXXXX`) are removed by the next run that
/// holds the store's lock — only that pattern, only for files the workflow writes, only in its output folders.
@Suite struct StoreTemporaryTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.photo("wine").write(to: URL(fileURLWithPath: scratch.path("wine.jpg")))
        try scratch.write(
            "copy.yaml",
            """
            version: 1
            name: copy
            tasks:
              fetch: { type: fetch, url: wine.jpg }
              save: { type: write, path: out/copy.jpg, dependsOn: fetch }
            """)
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
    }

    /// Names that look alike but are not a temporary of `out/copy.jpg`.
    static let strangers = [
        ".flowrun-other.jpg.a1B2c3",  // a file this workflow does not write
        ".flowrun-copy.jpg.a1B2c3d",  // not mkstemp's six characters
        ".flowrun-copy.jpg.a1-2c3",
        "copy.jpg.a1B2c3",
        ".flowrun-copy.jpg",
    ]

    func plant(_ names: [String]) throws {
        for name in names { try Data("partial".utf8).write(to: URL(fileURLWithPath: scratch.path("out/\(name)"))) }
    }

    func remaining() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")))
    }

    @Test func aRunRemovesTheTemporariesAKilledRunLeftOfItsOwnOutputsOnly() async throws {
        try plant([".flowrun-copy.jpg.a1B2c3", ".flowrun-copy.jpg.ZZ9zz9"] + Self.strangers)
        let result = try await Child.runFlowrun(["copy.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try remaining() == Set(["copy.jpg"] + Self.strangers))
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/copy.jpg"))) == Fixtures.photo("wine"))
    }

    @Test func withoutTheStoreNoLockSaysTheTemporaryIsStaleSoItStays() async throws {
        try plant([".flowrun-copy.jpg.a1B2c3"])
        let result = try await Child.runFlowrun(["copy.yaml", "--no-progress", "--no-cache"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try remaining() == ["copy.jpg", ".flowrun-copy.jpg.a1B2c3"])
    }
}
