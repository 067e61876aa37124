import Foundation
import TestSupport
import Testing

@testable import FlowKit

/// The sweep of the temporaries a killed write left: it lists each output folder once and removes exactly the
/// abandoned temporaries of the files the plan writes.
@Suite struct WriteTemporariesTests {
    let temporary: TemporaryFolder
    var folder: String { temporary.path }

    init() throws {
        temporary = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder + "/a/b", withIntermediateDirectories: true)
    }

    @Test func theFoldersOfOutputsAreThoseFilePathsReadInTheOrderFirstMet() {
        let paths: [String?] = [
            "out/a.jpg", "out/b.jpg", nil, "/x", "/y", "a", "b", "out/c/", "out/c/d", "out//e", "out/c/", "",
        ]
        #expect(WriteTemporaries.folders(of: paths) == ["out", "/", ".", "out/c"])
        #expect(WriteTemporaries.folders(of: []) == [])
    }

    func plant(_ names: [String], in subfolder: String) throws {
        for name in names {
            try Data("partial".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(subfolder)/\(name)"))
        }
    }

    func remaining(in subfolder: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: "\(folder)/\(subfolder)"))
    }

    @Test func abandonedTemporariesOfWrittenFilesGoInEveryFolderAndNothingElse() throws {
        let strangers = [".flowrun-other.jpg.a1B2c3", ".flowrun-x.jpg.a1B2c3d", "x.jpg.a1B2c3", ".flowrun-x.jpg"]
        try plant([".flowrun-x.jpg.a1B2c3", "x.jpg"] + strangers, in: "a")
        try plant([".flowrun-y.jpg.ZZ9zz9", ".flowrun-x.jpg.q1w2e3"], in: "a/b")
        // A live writer's temporary is locked: it stays.
        let live = try WriteTemporaries.create(for: "z.jpg", in: folder + "/a/b")
        defer { close(live.descriptor) }
        let outputs: [String?] = ["a/x.jpg", nil, "a/b/y.jpg", "a/b/z.jpg"].map { $0.map { "\(folder)/\($0)" } }
        let removed = WriteTemporaries.removeStale(of: outputs)
        #expect(Set(removed) == ["\(folder)/a/.flowrun-x.jpg.a1B2c3", "\(folder)/a/b/.flowrun-y.jpg.ZZ9zz9"])
        #expect(try remaining(in: "a") == Set(["x.jpg", "b"] + strangers))
        #expect(try remaining(in: "a/b") == [".flowrun-x.jpg.q1w2e3", FilePaths.name(of: live.path)])
        // Nothing left to remove: the folders are listed, and nothing goes.
        #expect(WriteTemporaries.removeStale(of: outputs) == [])
        #expect(WriteTemporaries.removeStale(of: ["\(folder)/missing/x.jpg"]) == [])
    }
}
