import Foundation
import Testing

/// The README's recipes, run as a user would on a photo folder as people keep them: nested years and albums,
/// `.JPG` from a phone, a space in a name, hidden files and folders, and notes that are not photos.
@Suite struct RecipeTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        let photos: [(String, String)] = [
            ("2023/Basque Country/bridge.JPG", "aitzgorri"), ("2024/summer/fig.jpeg", "friends"),
            ("2024/summer/.hidden.jpg", "wine"), (".trash/old.jpg", "wine"), ("top.jpg", "seeding"),
        ]
        for (path, photo) in photos {
            let file = scratch.url.appendingPathComponent("photos/\(path)")
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Fixtures.photo(photo).write(to: file)
        }
        try scratch.write("photos/notes.txt", "not a photo")
    }

    private func recipe(_ name: String, _ extra: [String] = ["--quiet"]) async throws -> Flowrun.Result {
        let workflow = Fixtures.root.appendingPathComponent("workflows/recipes/\(name).yaml").path
        return try await Child.runFlowrun(
            [
                workflow, "--param", "photos=\(scratch.path("photos"))", "--param", "out=\(scratch.path("out"))",
                "--state-dir", scratch.path("state"), "--no-progress",
            ] + extra)
    }

    /// Every file below `out`, relative to it, sorted.
    private func outputTree() -> [String] {
        let out = scratch.url.appendingPathComponent("out")
        let files = FileManager.default.enumerator(at: out, includingPropertiesForKeys: [.isRegularFileKey])?
            .compactMap { $0 as? URL }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .map { String($0.path.dropFirst(out.path.count + 1)) }
        return (files ?? []).sorted()
    }

    @Test func mirrorThumbnailsKeepsTheTreeAndMakesOnlyNewPhotosAgain() async throws {
        let first = try await recipe("mirror-thumbnails")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            outputTree() == [
                "1024/2023/Basque Country/bridge.webp", "1024/2024/summer/fig.webp", "1024/top.webp",
                "320/2023/Basque Country/bridge.jpg", "320/2024/summer/fig.jpg", "320/top.jpg",
            ])
        try Fixtures.photo("sunset").write(to: scratch.url.appendingPathComponent("photos/2024/summer/sunset.JPG"))
        let second = try await recipe("mirror-thumbnails", ["--verbose"])
        #expect(second.status == 0)
        let ran = second.stdout.split(separator: "\n").filter { $0.contains(" succeeded ") }
            .map { String($0.prefix { $0 != " " }) }.sorted()
        // Items are known by their paths, as the glob names them; the table shortens long ones in the middle.
        #expect(ran.map { $0.prefix { $0 != "[" } } == ["decode", "large", "read", "saveLarge", "saveSmall", "small"])
        #expect(ran.allSatisfy { $0.hasSuffix("photos/2024/summer/sunset.JPG]") }, "\(ran)")
        #expect(outputTree().contains("320/2024/summer/sunset.jpg"))
    }

    @Test func thumbnailIndexListsWhatWasWrittenInThePhotosOrder() async throws {
        let result = try await recipe("thumbnail-index")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            outputTree() == ["2023/Basque Country/bridge.jpg", "2024/summer/fig.jpg", "index.txt", "top.jpg"])
        let index = try String(contentsOfFile: scratch.path("out/index.txt"), encoding: .utf8)
        #expect(index == "bridge.jpg\nfig.jpg\ntop.jpg\n")
    }

    @Test func aListFromACommandMakesThePhotosItNamesAndOnlyNewOnesAgain() async throws {
        let first = try await recipe("list-from-command")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(outputTree() == ["bridge.jpg", "fig.jpg", "top.jpg"])
        try Fixtures.photo("sunset").write(to: scratch.url.appendingPathComponent("photos/2024/summer/sunset.JPG"))
        let second = try await recipe("list-from-command", ["--verbose"])
        #expect(second.status == 0, "\(second.stderr)")
        let ran = second.stdout.split(separator: "\n").filter { $0.contains(" succeeded ") }
            .map { String($0.prefix { $0 != " " }) }.sorted()
        #expect(ran.map { $0.prefix { $0 != "[" } } == ["decode", "read", "recent", "save", "small"], "\(ran)")
        #expect(ran.filter { $0 != "recent" }.allSatisfy { $0.hasSuffix("photos/2024/summer/sunset.JPG]") }, "\(ran)")
        #expect(outputTree() == ["bridge.jpg", "fig.jpg", "sunset.jpg", "top.jpg"])
    }
}
