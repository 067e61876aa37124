import Foundation
import Testing

/// Two nodes writing one file lose data silently: refused before the run when the paths are known, and at
/// run time when only the file system can tell (a folder reached through a symbolic link).
@Suite struct WriteCollisionTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    @Test func twoItemsWithOneOutputPathAreAnErrorAndNothingRuns() throws {
        try scratch.write("a/x.txt", "from a")
        try scratch.write("b/x.txt", "from b")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              fetch: { type: fetch, forEach: [a/x.txt, b/x.txt], url: "${item}" }
              save: { type: write, path: "out/${item.stem}.txt", dependsOn: fetch }
            """)
        let result = try Flowrun.run(["flow.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(
                "flow.yaml:4:30: error: 'save[b/x.txt]' and 'save[a/x.txt]' both write 'out/x.txt'; one file would replace the other"
            ), "\(result.stderr)")
        #expect(result.stderr.contains("hint: give each item its own path: add ${item.index}"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "nothing may run")
    }

    /// A glob over a photo folder meets files with one stem — an edit `fig.png` beside `fig.jpg`, `x.jpg` in two
    /// albums — and the hint names the part of the path that tells them apart.
    @Test func filesWithOneStemAreToldApartByTheHint() throws {
        for file in ["photos/fig.jpg", "photos/fig.png", "photos/a/x.jpg", "photos/b/x.jpg"] {
            try scratch.write(file, file)
        }
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              fetch: { type: fetch, forEach: { glob: "photos/**/*.{jpg,png}" }, url: "${item}" }
              save: { type: write, path: "out/${item.stem}.jpg", dependsOn: fetch }
            """)
        let result = try Flowrun.run(["flow.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                flow.yaml:4:30: error: 'save[photos/b/x.jpg]' and 'save[photos/a/x.jpg]' both write 'out/x.jpg'; \
                one file would replace the other
                 4 |   save: { type: write, path: "out/${item.stem}.jpg", dependsOn: fetch }
                   |                              ^
                    hint: 'photos/a/x.jpg' and 'photos/b/x.jpg' have one ${item.stem}: keep the folders with \
                ${item.dir} or ${item.rel}
                flow.yaml:4:30: error: 'save[photos/fig.png]' and 'save[photos/fig.jpg]' both write 'out/fig.jpg'; \
                one file would replace the other
                 4 |   save: { type: write, path: "out/${item.stem}.jpg", dependsOn: fetch }
                   |                              ^
                    hint: 'photos/fig.jpg' and 'photos/fig.png' have one ${item.stem}: keep the extension with \
                ${item.ext} or ${item.name}
                2 errors in flow.yaml; nothing was run

                """, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "nothing may run")
    }

    @Test func writingOverASourceIsAnError() throws {
        try scratch.write("photos/a.txt", "original")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              fetch: { type: fetch, url: photos/a.txt }
              save: { type: write, path: ./photos/a.txt, dependsOn: fetch }
            """)
        let result = try Flowrun.run(["flow.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("error: 'save' writes 'photos/a.txt', which 'fetch' reads"), "\(result.stderr)")
        #expect(try String(contentsOfFile: scratch.path("photos/a.txt"), encoding: .utf8) == "original")
    }

    /// Files are compared by their keys relative to the workflow's folder: a path written absolute or with `.` or
    /// `..` in it is the same file as the plain relative one, inside the folder and in its store.
    @Test func aFileIsOneFileWhetherItsPathIsAbsoluteOrRelative() throws {
        try scratch.write("photos/a.txt", "original")
        // As the run's working folder names it, through any link on the way to the temporary folder.
        let folder = scratch.url.resolvingSymlinksInPath().path
        let name = scratch.url.lastPathComponent
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              fetch: { type: fetch, url: "\(folder)/photos/a.txt" }
              save: { type: write, path: photos/a.txt, dependsOn: fetch }
              copy: { type: write, path: "\(folder)/out/b.txt", dependsOn: fetch }
              again: { type: write, path: out/./b.txt, dependsOn: fetch }
              self: { type: write, path: "\(folder)/flow.yaml", dependsOn: fetch }
              store: { type: write, path: "../\(name)/.flowrun", dependsOn: fetch }
            """)
        let result = try Flowrun.run(["validate", "flow.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                flow.yaml:4:30: error: 'save' writes 'photos/a.txt', which 'fetch' reads
                 4 |   save: { type: write, path: photos/a.txt, dependsOn: fetch }
                   |                              ^
                    hint: write outputs to another folder: the run would replace one of its own inputs
                flow.yaml:3:30: note: 'fetch' reads it here
                flow.yaml:6:31: error: 'again' and 'copy' both write 'out/b.txt'; one file would replace the other
                 6 |   again: { type: write, path: out/./b.txt, dependsOn: fetch }
                   |                               ^
                    hint: give one of the two tasks another path
                flow.yaml:5:30: note: 'copy' writes it here
                flow.yaml:7:30: error: 'self' writes '\(folder)/flow.yaml', which is the workflow file
                 7 |   self: { type: write, path: "\(folder)/flow.yaml", dependsOn: fetch }
                   |                              ^
                    hint: write outputs to another folder: the run would replace a file it is made of
                flow.yaml:8:31: error: 'store' writes '../\(name)/.flowrun', which is inside the store
                 8 |   store: { type: write, path: "../\(name)/.flowrun", dependsOn: fetch }
                   |                               ^
                    hint: write outputs to another folder: the run would replace a file it is made of
                4 errors in flow.yaml; nothing was run

                """, "\(result.stderr)")
        #expect(try String(contentsOfFile: scratch.path("photos/a.txt"), encoding: .utf8) == "original")
    }

    @Test func aWriteThroughASymbolicLinkIsRefusedAtRunTime() throws {
        try scratch.write("a.txt", "first")
        try scratch.write("b.txt", "second")
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("alias"), withDestinationPath: "out")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              first: { type: fetch, url: a.txt }
              second: { type: fetch, url: b.txt }
              keep: { type: write, path: out/x.txt, dependsOn: first }
              clobber: { type: write, path: alias/x.txt, dependsOn: [second, keep], input: second }
              after: { type: noop, dependsOn: clobber }
            """)
        let result = try Flowrun.run(["flow.yaml"], in: scratch.url)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("refusing to replace"), "\(result.stdout)")
        #expect(result.stdout.contains("which 'keep' wrote earlier in this run"))
        #expect(try String(contentsOfFile: scratch.path("out/x.txt"), encoding: .utf8) == "first")
    }
}
