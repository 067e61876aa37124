import Foundation
import Testing

/// An output edited behind the store's back is found even when the edit kept its size and modification time
/// (`touch -r`): the inode's change time says it changed after the store last wrote.
@Suite struct EditedOutputTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try scratch.write("in.txt", "the photo's bytes\n")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: in.txt }
              save: { type: write, path: out.txt, dependsOn: read }

            """)
    }

    private func run() async throws -> Flowrun.Result {
        try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
    }

    /// Overwrites the file's bytes in place (same inode, same size), then gives it back its old modification time.
    private func editInPlaceKeepingSizeAndTime(_ name: String) throws {
        let path = scratch.path(name)
        let before = try FileManager.default.attributesOfItem(atPath: path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.write(contentsOf: Data("THE PHOTO'S BYTES\n".utf8))
        try handle.close()
        var times = [info.st_atim, info.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let after = try FileManager.default.attributesOfItem(atPath: path)
        #expect(after[.size] as? Int == before[.size] as? Int)
        #expect(after[.modificationDate] as? Date == before[.modificationDate] as? Date)
        #expect(after[.systemFileNumber] as? Int == before[.systemFileNumber] as? Int)
    }

    @Test func anOutputEditedInPlaceWithItsTimeRestoredIsWrittenAgain() async throws {
        #expect(try await run().status == 0)
        let unchanged = try await run()
        #expect(unchanged.stdout.contains("2 nodes: 2 cached"), "\(unchanged.stdout)")
        try editInPlaceKeepingSizeAndTime("out.txt")
        let explained = try await Child.runFlowrun(["explain", "flow.yaml", "save"], in: scratch.url)
        #expect(
            explained.stdout.hasSuffix("runs: output changed since it was written: out.txt\n"), "\(explained.stdout)")
        let rerun = try await run()
        #expect(rerun.status == 0)
        let save = rerun.stdout.split(separator: "\n").first { $0.hasPrefix("save ") } ?? ""
        #expect(save.contains(" succeeded "), "\(rerun.stdout)")
        #expect(try String(contentsOfFile: scratch.path("out.txt"), encoding: .utf8) == "the photo's bytes\n")
        let again = try await run()
        #expect(again.stdout.contains("2 nodes: 2 cached"), "\(again.stdout)")
    }
}
