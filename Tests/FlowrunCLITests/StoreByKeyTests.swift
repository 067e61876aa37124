import Foundation
import Testing

/// Results found by key, through the built binary: a node whose key matches a recorded result, whichever node
/// recorded it, is cached while that result's output is intact.
@Suite struct StoreByKeyTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.writeItems(["b", "c", "d"], in: scratch)
        try scratch.write("copy.yaml", Fixtures.copyingWorkflow())
    }

    func run() async throws -> Flowrun.Result {
        try await Child.runFlowrun(["copy.yaml", "--no-progress"], in: scratch.url)
    }

    func stamps() throws -> [String: String] {
        var stamps: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")) {
            var info = stat()
            #expect(stat(scratch.path("out/\(name)"), &info) == 0)
            stamps[name] = "\(info.st_ino) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return stamps
    }

    @Test func aNewItemThatSortsFirstRunsAloneTheOthersFoundByKey() async throws {
        #expect(try await run().stdout.contains("6 nodes: 6 succeeded"))
        let before = try stamps()
        try scratch.write("in/a.txt", "item a\n")
        let added = try await run()
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("8 nodes: 2 succeeded, 6 cached"), "\(added.stdout)")
        let after = try stamps()
        #expect(after.filter { $0.key != "a.txt" } == before, "no output of an item that only moved is rewritten")
        #expect(try String(contentsOfFile: scratch.path("out/a.txt"), encoding: .utf8) == "item a\n")
        #expect(try await run().stdout.contains("8 nodes: 8 cached"))
    }

    @Test func aResultFoundByKeyWhoseFileChangedRunsAgain() async throws {
        #expect(try await run().status == 0)
        try scratch.write("in/a.txt", "item a\n")
        try scratch.write("out/c.txt", "edited\n")
        let added = try await run()
        // The new item, and the one whose recorded file no longer holds what was written.
        #expect(added.stdout.contains("8 nodes: 4 succeeded, 4 cached"), "\(added.stdout)")
        #expect(try String(contentsOfFile: scratch.path("out/c.txt"), encoding: .utf8) == "item c\n")
    }
}
