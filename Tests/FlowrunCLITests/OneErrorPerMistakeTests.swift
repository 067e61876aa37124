import Foundation
import TestSupport
import Testing

/// One mistake is one error, through the binary: a misspelt dependency is reported once, with what was meant,
/// and not again as everything below it; a mistake in a pipeline imported three times is reported once, with
/// a note at each import.
@Suite struct OneErrorPerMistakeTests {
    let scratch: Scratch

    /// A site whose photos go through one pipeline three times, at three widths.
    static func site(decodeDependsOn: String) -> String {
        """
        version: 1
        name: site
        tasks:
          photos: { type: fetch, forEach: { glob: "content/**/*.jpg" }, url: "${item}" }
          decode: { type: decode, dependsOn: \(decodeDependsOn) }
          small: { uses: pipelines/thumb.yaml, with: { width: 100 }, dependsOn: decode }
          medium: { uses: pipelines/thumb.yaml, with: { width: 400 }, dependsOn: decode }
          large: { uses: pipelines/thumb.yaml, with: { width: 800 }, dependsOn: decode }

        """
    }

    static let pipeline = """
        version: 1
        params:
          width: 100
        tasks:
          resize: { type: resize, width: "${params.width}" }
          save: { type: write, path: "out/${item.dir}/${item.stem}-${params.width}.png", dependsOn: resize }

        """

    init() throws {
        scratch = try Scratch()
        try scratch.write("content/2024/a.jpg", try Fixtures.photo("wine"))
        try scratch.write("pipelines/thumb.yaml", Self.pipeline)
    }

    func transcript(_ arguments: [String]) async throws -> String {
        let result = try await Child.runFlowrun(arguments, in: scratch.url)
        return CILogTests.transcript(arguments, result, scratch: scratch)
    }

    func expectGolden(_ name: String, _ text: String) throws {
        #expect(text == (try Golden.expected(for: text, at: CILogTests.golden(name))))
    }

    @Test func aMisspeltDependencyIsOneErrorWithWhatWasMeant() async throws {
        try scratch.write("site.yaml", Self.site(decodeDependsOn: "photo"))
        try expectGolden("one-error-typo.txt", try await transcript(["validate", "site.yaml"]))
    }

    @Test func aMisspeltDependencyOfAGatherIsOneError() async throws {
        try scratch.write(
            "gather.yaml",
            """
            version: 1
            name: gather
            tasks:
              photos: { type: fetch, forEach: { glob: "content/**/*.jpg" }, url: "${item}" }
              count: { type: command, argv: [wc, -l], stdin: true, gather: true, dependsOn: photo }

            """)
        try expectGolden("one-error-gather-typo.txt", try await transcript(["validate", "gather.yaml"]))
    }

    @Test func aMistakeInAPipelineImportedThreeTimesIsOneErrorWithANoteAtEachImport() async throws {
        try scratch.write("site.yaml", Self.site(decodeDependsOn: "photos"))
        try scratch.write(
            "pipelines/thumb.yaml",
            Self.pipeline.replacingOccurrences(of: "dependsOn: resize", with: "dependsOn: resise"))
        try expectGolden("one-error-in-pipeline.txt", try await transcript(["validate", "site.yaml"]))
    }
}
