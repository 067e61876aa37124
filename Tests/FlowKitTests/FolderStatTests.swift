import Foundation
import Testing

@testable import FlowKit

#if canImport(Glibc)
    import Glibc
#endif

/// `stat` through a folder's descriptor answers as `stat` of the whole path, whatever the path looks like.
@Suite struct FolderStatTests {
    let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("folderstat-\(UUID().uuidString)").path
        let files = FileManager.default
        try files.createDirectory(atPath: folder + "/in/sub", withIntermediateDirectories: true)
        try Data("one".utf8).write(to: URL(fileURLWithPath: folder + "/in/a.txt"))
        try Data("two!".utf8).write(to: URL(fileURLWithPath: folder + "/in/b"))
        try Data("three".utf8).write(to: URL(fileURLWithPath: folder + "/in/sub/c.txt"))
        try files.createSymbolicLink(atPath: folder + "/in/link.txt", withDestinationPath: "a.txt")
        try files.createSymbolicLink(atPath: folder + "/in/dangling", withDestinationPath: "nowhere")
        try files.createSymbolicLink(atPath: folder + "/folder-link", withDestinationPath: "in/sub")
    }

    /// What `stat(2)` of the whole path says, in the fields a stamp and a decision read.
    static func expected(_ path: String) -> [Int64]? {
        var info = stat()
        return stat(path, &info) == 0 ? fields(info) : nil
    }

    static func fields(_ info: stat) -> [Int64] {
        [
            Int64(info.st_ino), Int64(info.st_size), Int64(info.st_mode), Int64(info.st_mtim.tv_sec),
            Int64(info.st_mtim.tv_nsec), Int64(info.st_ctim.tv_nsec),
        ]
    }

    @Test func everyPathIsAnsweredAsStatAnswersIt() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let paths =
            [
                "in/a.txt", "in/b", "in/sub/c.txt", "in/a.txt", "in/link.txt", "in/dangling", "in/missing.txt",
                "in/sub", "in/sub/", "in//a.txt", "in/sub/../b", "in/sub/..", "in/.", "folder-link/c.txt",
                "missing/a.txt", "in/a.txt/x", "in/a.txt",
            ].map { folder + "/" + $0 } + ["/", "/tmp", "/proc/self/status", "relative-name-that-is-not-there"]
        // One instance for all, as a pass of decisions uses it: folders change back and forth.
        let folders = FolderStat()
        for path in paths {
            #expect(folders.status(of: path).map(Self.fields) == Self.expected(path), "\(path)")
        }
        let stamp = try #require(folders.stamp(ofRegularFile: folder + "/in/b"))
        #expect(stamp.stamp == FileStamp(path: folder + "/in/b"))
        #expect(stamp.stamp.size == 4)
        #expect(folders.stamp(ofRegularFile: folder + "/in/sub") == nil)
        #expect(folders.stamp(ofRegularFile: folder + "/in/dangling") == nil)
    }

    @Test func aFileReplacedUnderAnOpenFolderIsSeenAsItIsNow() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let folders = FolderStat()
        let path = folder + "/in/a.txt"
        let before = try #require(folders.stamp(ofRegularFile: path))
        try Data("replaced, longer".utf8).write(to: URL(fileURLWithPath: folder + "/in/new.txt"))
        #expect(rename(folder + "/in/new.txt", path) == 0)
        let after = try #require(folders.stamp(ofRegularFile: path))
        #expect(after.stamp != before.stamp)
        #expect(after.stamp == FileStamp(path: path))
        try FileManager.default.removeItem(atPath: path)
        #expect(folders.stamp(ofRegularFile: path) == nil)
    }
}
