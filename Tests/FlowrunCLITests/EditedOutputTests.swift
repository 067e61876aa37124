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
        try await Child.runFlowrun(["flow.yaml", "--no-progress", "--verbose"], in: scratch.url)
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

    /// Moves the file's modification time a day into the future, as a clock set wrong or an unpacked archive does.
    private func touchIntoTheFuture(_ name: String) throws {
        let future = Date().addingTimeInterval(86_400)
        try FileManager.default.setAttributes([.modificationDate: future], ofItemAtPath: scratch.path(name))
    }

    /// Copies the file away and back with `cp -p`: a new inode's worth of change time, the old modification time.
    private func copyAwayAndBack(_ name: String) throws {
        let path = scratch.path(name)
        #expect(try runToEnd("/bin/cp", ["-p", path, path + ".copy"]).status == 0)
        try FileManager.default.removeItem(atPath: path)
        #expect(try runToEnd("/bin/cp", ["-p", path + ".copy", path]).status == 0)
        try FileManager.default.removeItem(atPath: path + ".copy")
    }

    /// Gives the file the modification time of another file with `touch -r`.
    private func touchLikeAnother(_ name: String) throws {
        try scratch.write("reference.txt", "")
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: scratch.path("reference.txt")
        )
        #expect(try runToEnd("/usr/bin/touch", ["-r", scratch.path("reference.txt"), scratch.path(name)]).status == 0)
    }

    @Test(arguments: ["future mtime", "cp -p back", "touch -r"])
    func anOutputTouchedButUnchangedStaysCached(_ touch: String) async throws {
        #expect(try await run().status == 0)
        switch touch {
        case "future mtime": try touchIntoTheFuture("out.txt")
        case "cp -p back": try copyAwayAndBack("out.txt")
        default: try touchLikeAnother("out.txt")
        }
        let dryRun = try await Child.runFlowrun(["run", "flow.yaml", "--dry-run"], in: scratch.url)
        #expect(dryRun.stdout.contains("2 nodes will run") == false, "\(dryRun.stdout)")
        #expect(dryRun.stdout.contains("0 nodes will run, 2 cached"), "\(dryRun.stdout)")
        let explained = try await Child.runFlowrun(["explain", "flow.yaml", "save"], in: scratch.url)
        #expect(explained.stdout.contains("cached: same key as the result of the run of "), "\(explained.stdout)")
        #expect(explained.stdout.hasSuffix("; out.txt is as written\n"), "\(explained.stdout)")
        let rerun = try await run()
        #expect(rerun.stdout.contains("2 nodes: 2 cached"), "\(rerun.stdout)")
        let again = try await run()
        #expect(again.stdout.contains("2 nodes: 2 cached"), "\(again.stdout)")
        #expect(try String(contentsOfFile: scratch.path("out.txt"), encoding: .utf8) == "the photo's bytes\n")
    }
}
