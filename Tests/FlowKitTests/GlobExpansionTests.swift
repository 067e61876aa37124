import Foundation
import Testing

@testable import FlowKit

/// `forEach: { glob: … }` on real folder trees made by the tests: depth, alternatives, case, hidden entries,
/// excludes, links, order, and what is said when nothing matches.
@Suite struct GlobExpansionTests {
    /// A temporary folder with a workflow in it; removed at the end of each test.
    final class Tree {
        let root: URL

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-globs-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        func files(_ paths: [String]) throws {
            for path in paths {
                let url = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("x".utf8).write(to: url)
            }
        }

        func link(_ path: String, to target: String) throws {
            try FileManager.default.createSymbolicLink(
                atPath: root.appendingPathComponent(path).path, withDestinationPath: target)
        }

        /// Plans `forEach` (a YAML flow value) on a task that echoes the given item parts.
        func plan(_ forEach: String, strict: Bool = false, path: String = "${item}") throws
            -> (items: [String], messages: [String])
        {
            let workflow = root.appendingPathComponent("flow.yaml")
            try Data(
                """
                version: 1
                tasks:
                  each: { type: command, forEach: \(forEach), argv: [echo, "\(path)"] }
                """.utf8
            ).write(to: workflow)
            var loader = TestTasks.loader()
            loader.strict = strict
            let result = loader.plan(path: workflow.path)
            let messages = result.diagnostics.all.map { "\($0.severity): \($0.message)" }
            let items =
                result.plan.map { plan in
                    plan.nodes.map { plan.parameters(of: $0)["argv"]?.listValue?.last?.description ?? "?" }
                } ?? []
            return (items, messages)
        }
    }

    /// Years and albums, a phone's upper-case extensions, spaces, hidden files and folders, edits in PNG and
    /// WebP, and files that are not photos.
    static let photos = [
        "photos/2023/IMG_0001.JPG", "photos/2023/notes.txt", "photos/2024/basque/bridge.jpg",
        "photos/2024/basque/bridge edit.png", "photos/2024/basque/.DS_Store", "photos/2024/.cache/thumb.jpg",
        "photos/2024/drafts/raw.jpg", "photos/.hidden.jpg", "photos/top.webp", "photos/Zebra.jpg",
    ]

    @Test func doubleStarAlternativesAndIgnoreCaseFindTheWholeTreeInByteOrder() throws {
        let tree = try Tree()
        try tree.files(Self.photos)
        let found = try tree.plan(#"{ glob: "photos/**/*.{jpg,png,webp}", ignoreCase: true }"#)
        #expect(
            found.items == [
                "photos/2023/IMG_0001.JPG", "photos/2024/basque/bridge edit.png", "photos/2024/basque/bridge.jpg",
                "photos/2024/drafts/raw.jpg", "photos/Zebra.jpg", "photos/top.webp",
            ])
        #expect(found.messages.isEmpty)
        let caseSensitive = try tree.plan(#"{ glob: "photos/**/*.jpg" }"#)
        #expect(
            caseSensitive.items == [
                "photos/2024/basque/bridge.jpg", "photos/2024/drafts/raw.jpg", "photos/Zebra.jpg",
            ])
    }

    /// A folder's names are sorted by their first 16 bytes as numbers, then whole: names alike for 16 bytes and
    /// more, one the start of another, and names past ASCII still come in UTF-8 byte order.
    @Test func aFoldersNamesComeInByteOrderWhereverTheyDiffer() throws {
        let names = [
            "abcdefghijklmnop-2", "abcdefghijklmnop-10", "abcdefghijklmnop", "abcdefghijklmno", "abcdefghijklmnoq",
            "abcdefghijklmnop-1", "b", "a", "ab", "a0", "Z", "é", "z", "~", "\u{10FFFF}x",
            "abcdefghijklmnopqrstuvwxyz-é", "abcdefghijklmnopqrstuvwxyz-e",
        ]
        let tree = try Tree()
        try tree.files(names.map { "in/\($0)" })
        let found = try tree.plan(#"{ glob: "in/*" }"#)
        #expect(found.items == names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { "in/\($0)" })
        #expect(found.messages.isEmpty)
    }

    @Test func severalPatternsAndExcludes() throws {
        let tree = try Tree()
        try tree.files(Self.photos)
        let found = try tree.plan(
            #"{ glob: ["photos/*.webp", "photos/**/*.jpg", "photos/Zebra.jpg"], exclude: "photos/**/drafts/**" }"#)
        #expect(found.items == ["photos/2024/basque/bridge.jpg", "photos/Zebra.jpg", "photos/top.webp"])
        #expect(found.messages.isEmpty)
    }

    @Test func hiddenEntriesOnlyWhereThePatternNamesThem() throws {
        let tree = try Tree()
        try tree.files(Self.photos)
        #expect(try tree.plan(#"{ glob: "photos/.*.jpg" }"#).items == ["photos/.hidden.jpg"])
        #expect(try tree.plan(#"{ glob: "photos/**/.cache/*.jpg" }"#).items == ["photos/2024/.cache/thumb.jpg"])
    }

    @Test func pathPartsMirrorTheTree() throws {
        let tree = try Tree()
        try tree.files(Self.photos)
        let parts = "${item.rel}|${item.dir}|${item.name}|${item.stem}|${item.ext}"
        let found = try tree.plan(#"{ glob: "photos/2024/**/*.jpg" }"#, path: parts)
        #expect(
            found.items == ["basque/bridge.jpg|basque|bridge.jpg|bridge|jpg", "drafts/raw.jpg|drafts|raw.jpg|raw|jpg"])
        let top = try tree.plan(#"{ glob: "photos/*.webp" }"#, path: "out/${item.dir}/${item.stem}.jpg")
        #expect(top.items == ["out//top.jpg"])
    }

    @Test func fileListLinesHaveThePartsAndCannotClimbOut() throws {
        let tree = try Tree()
        try Data("a/b/c.jpg\nplain.png\n".utf8).write(to: tree.root.appendingPathComponent("list.txt"))
        let found = try tree.plan("{ file: list.txt }", path: "${item.rel}|${item.dir}|${item.stem}")
        #expect(found.items == ["a/b/c.jpg|a/b|c", "plain.png||plain"])
        try Data("../../etc/passwd\n/etc/hosts\n".utf8).write(to: tree.root.appendingPathComponent("list.txt"))
        let climbing = try tree.plan("{ file: list.txt }", path: "out/${item.dir}/${item.name}")
        #expect(climbing.items.isEmpty)
        #expect(
            climbing.messages == [
                "error: '${item.dir}' of the item '../../etc/passwd' climbs out of the folder it is put in",
                "error: '${item.dir}' of the item '/etc/hosts' climbs out of the folder it is put in",
            ])
    }

    @Test func linkLoopsEndAndLinksOutsideAreLeftOut() throws {
        let tree = try Tree()
        try tree.files(["photos/a.jpg", "photos/2024/b.jpg", "elsewhere/secret.jpg"])
        try tree.link("photos/2024/loop", to: "..")
        try tree.link("photos/again", to: "2024")
        try tree.link("photos/out", to: "../elsewhere")
        let found = try tree.plan(#"{ glob: "photos/**/*.jpg" }"#)
        // '2024' sorts before 'again': the folder is walked by that name, and its second name is passed by.
        #expect(found.items == ["photos/2024/b.jpg", "photos/a.jpg"])
        #expect(
            found.messages == [
                "warning: 'photos/out' is a symbolic link that leads outside the folder the glob names; it is left out"
            ])
        // Named in the pattern, the link is followed.
        #expect(try tree.plan(#"{ glob: "photos/out/*.jpg" }"#).items == ["photos/out/secret.jpg"])
    }

    @Test func parentFoldersOnlyWhereThePatternSaysSo() throws {
        let tree = try Tree()
        try tree.files(["shared/x.jpg", "flows/y.jpg"])
        let workflowFolder = tree.root.appendingPathComponent("flows")
        try Data(
            """
            version: 1
            tasks:
              each: { type: command, forEach: { glob: "../shared/*.jpg" }, argv: [echo, "${item}"] }
            """.utf8
        ).write(to: workflowFolder.appendingPathComponent("flow.yaml"))
        let result = TestTasks.loader().plan(path: workflowFolder.appendingPathComponent("flow.yaml").path)
        let plan = try #require(result.plan)
        #expect(plan.nodes.map { $0.item?.description } == ["../shared/x.jpg"])
    }

    @Test func noMatchNamesTheNearestFolderAndIsAnErrorWhenStrict() throws {
        let tree = try Tree()
        try tree.files(Self.photos)
        let missing = try tree.plan(#"{ glob: "photos/2025/**/*.jpg" }"#)
        #expect(missing.items.isEmpty)
        #expect(
            missing.messages == [
                "warning: the glob 'photos/2025/**/*.jpg' matches no files: 'photos/2025' does not exist; the nearest folder that does is 'photos'"
            ])
        let empty = try tree.plan(#"{ glob: "photos/**/*.gif" }"#, strict: true)
        #expect(empty.messages == ["error: the glob 'photos/**/*.gif' matches no files in 'photos'"])
    }

    @Test func namesThatAreNotUTF8AreLeftOutWithAWarning() throws {
        let tree = try Tree()
        try tree.files(["photos/a.jpg"])
        // "b\xFF.jpg": a name a file system allows and no Swift string holds.
        let name: [CChar] =
            Array((tree.root.path + "/photos/b").utf8CString.dropLast()) + [-1] + Array(".jpg".utf8CString)
        let descriptor = open(name, O_CREAT | O_WRONLY, 0o644)
        try #require(descriptor >= 0)
        close(descriptor)
        let found = try tree.plan(#"{ glob: "photos/*.jpg" }"#)
        #expect(found.items == ["photos/a.jpg"])
        #expect(found.messages == ["warning: a name in 'photos' is not UTF-8; it is left out"])
    }

    @Test func unreadablePatternsAreErrors() throws {
        let tree = try Tree()
        let found = try tree.plan(#"{ glob: "photos/*.{jpg" }"#)
        #expect(
            found.messages == [
                "error: cannot read the glob 'photos/*.{jpg': '{' at character 3 is not closed by '}'"
            ])
    }

    @Test(.enabled(if: geteuid() != 0, "root reads every folder, so none can be unreadable"))
    func unreadableFoldersWarnAndTheRestGoesOn() throws {
        let tree = try Tree()
        try tree.files(["photos/a.jpg", "photos/locked/b.jpg"])
        let locked = tree.root.appendingPathComponent("photos/locked").path
        chmod(locked, 0)
        defer { chmod(locked, 0o755) }
        let found = try tree.plan(#"{ glob: "photos/**/*.jpg" }"#)
        #expect(found.items == ["photos/a.jpg"])
        #expect(
            found.messages == [
                "warning: cannot read the folder 'photos/locked' (Permission denied); its files are left out"
            ])
    }
}
