import Foundation
import Testing

/// A real photo folder through the binary: nested years and albums, a phone's `.JPG`, spaces, hidden files,
/// mirrored into thumbnails by one workflow; and a glob that matches nothing under `--strict`.
@Suite struct GlobCLITests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        let photos = [
            ("photos/2023/IMG_0001.JPG", "wine"), ("photos/2024/basque/bridge.jpg", "aitzgorri"),
            ("photos/2024/basque/at the bar.jpeg", "friends"), ("photos/top.jpg", "sunset"),
            ("photos/2024/.cache/skip.jpg", "seeding"), ("photos/.hidden.jpg", "seeding"),
        ]
        for (path, name) in photos {
            let file = URL(fileURLWithPath: scratch.path(path))
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Fixtures.photo(name).write(to: file)
        }
        try scratch.write("photos/2023/notes.txt", "not a photo")
    }

    @Test func oneWorkflowMirrorsANestedFolderIntoThumbnails() throws {
        try scratch.write(
            "thumbs.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "photos/**/*.{jpg,jpeg}", ignoreCase: true }, url: "${item}" }
              decode: { type: decode, dependsOn: read }
              small: { type: resize, width: 16, dependsOn: decode }
              save: { type: write, path: "out/320/${item.dir}/${item.stem}.jpg", dependsOn: small }
            """)
        let result = try Flowrun.run(["thumbs.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let tree = try FileManager.default.subpathsOfDirectory(atPath: scratch.path("out")).sorted()
        #expect(
            tree == [
                "320", "320/2023", "320/2023/IMG_0001.jpg", "320/2024", "320/2024/basque",
                "320/2024/basque/at the bar.jpg", "320/2024/basque/bridge.jpg", "320/top.jpg",
            ])
        // The table of --verbose names every node, cached ones too.
        let listed = try Flowrun.run(["thumbs.yaml", "--no-progress", "--verbose"], in: scratch.url)
        #expect(listed.stdout.contains("save[photos/2024/basque/at the bar.jpeg]"), "\(listed.stdout)")
    }

    @Test func aGlobThatMatchesNothingWarnsAndIsAnErrorWhenStrict() throws {
        try scratch.write(
            "none.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "photos/2025/*.jpg" }, url: "${item}" }
            """)
        let warned = try Flowrun.run(["validate", "none.yaml"], in: scratch.url)
        #expect(warned.status == 0)
        #expect(
            warned.stderr.hasPrefix(
                "none.yaml:3:41: warning: the glob 'photos/2025/*.jpg' matches no files: 'photos/2025' does not exist; the nearest folder that does is 'photos'"
            ), "\(warned.stderr)")
        let strict = try Flowrun.run(["none.yaml", "--strict"], in: scratch.url)
        #expect(strict.status == 2)
        #expect(
            strict.stderr.hasPrefix(
                "none.yaml:3:41: error: the glob 'photos/2025/*.jpg' matches no files: 'photos/2025' does not exist"),
            "\(strict.stderr)")
    }
}
