import Foundation
import Testing

/// A source whose stamp changed but whose bytes did not keeps its results: a fresh checkout gives every file a new
/// modification time and inode, and reran the whole workflow before (`source changed: … mtime …`).
@Suite struct SourceContentTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    /// Three sources read and written in a checkout at `folder`.
    private func makeCheckout(_ folder: String) throws {
        for name in ["a", "b", "c"] { try scratch.write("\(folder)/in/\(name).txt", "photo \(name)\n") }
        try scratch.write(
            "\(folder)/flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              save: { type: write, path: "out/${item.stem}.txt", dependsOn: read }

            """)
    }

    /// Runs the checkout at `folder` with the store at `store` (a path relative to the scratch folder); gives the
    /// result and the summary's last line without its duration.
    private func run(_ folder: String, store: String) async throws -> (Flowrun.Result, String) {
        let result = try await Child.runFlowrun(
            ["flow.yaml", "--no-progress", "--state-dir", scratch.path(store)],
            in: scratch.url.appendingPathComponent(folder))
        let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return (result, last.replacing(#/ in [0-9.]+m?s$/#, with: ""))
    }

    /// Replaces a file by a copy of its bytes: a new inode and a new modification time, as a checkout makes.
    private func replaceByCopy(_ name: String, bytes: String? = nil) throws {
        let path = scratch.path(name)
        let data = try bytes.map { Data($0.utf8) } ?? Data(contentsOf: URL(fileURLWithPath: path))
        let before = try #require(Stamp(path))
        try data.write(to: URL(fileURLWithPath: path + ".copy"))
        #expect(rename(path + ".copy", path) == 0)
        let after = try #require(Stamp(path))
        #expect(after.inode != before.inode)
    }

    @Test func sourcesReplacedByCopiesOfTheirBytesKeepEveryResult() async throws {
        try makeCheckout("site")
        let (first, firstSummary) = try await run("site", store: "store")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(firstSummary == "6 nodes: 6 succeeded", "\(first.stdout)")
        let written = try #require(Stamp(scratch.path("site/out/a.txt")))
        for name in ["a", "b", "c"] { try replaceByCopy("site/in/\(name).txt") }

        let (second, summary) = try await run("site", store: "store")
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(summary == "6 nodes: 6 cached", "\(second.stdout)")
        #expect(Stamp(scratch.path("site/out/a.txt")) == written, "an output was written again")
    }

    @Test func aSourceWithOtherBytesOfTheSameSizeRuns() async throws {
        try makeCheckout("site")
        #expect(try await run("site", store: "store").0.status == 0)
        try replaceByCopy("site/in/a.txt")
        try replaceByCopy("site/in/b.txt", bytes: "PHOTO b\n")

        let (second, summary) = try await run("site", store: "store")
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(summary == "6 nodes: 2 succeeded, 4 cached", "\(second.stdout)")
        #expect(try String(contentsOfFile: scratch.path("site/out/b.txt"), encoding: .utf8) == "PHOTO b\n")
    }

    /// A second checkout in another folder, every file new, with the first one's store: nothing runs — the keys
    /// name sources by their path in the workflow's folder, not on the machine.
    @Test func aCheckoutInAnotherFolderFindsTheFirstOnesResults() async throws {
        try makeCheckout("ci/build-1")
        let (first, _) = try await run("ci/build-1", store: "store")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        // Copied file by file (new inodes and times), outputs with them, as a cache of them would bring them.
        for name in ["flow.yaml", "in/a.txt", "in/b.txt", "in/c.txt", "out/a.txt", "out/b.txt", "out/c.txt"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.path("ci/build-1/\(name)")))
            _ = try scratch.write("elsewhere/build-2/\(name)", bytes)
        }

        let (second, summary) = try await run("elsewhere/build-2", store: "store")
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(summary == "6 nodes: 6 cached", "\(second.stdout)")
    }
}

/// What `stat` says of a file's version: size, modification time and inode.
struct Stamp: Equatable {
    var size: Int
    var modified: timespec
    var inode: UInt64

    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        (size, modified, inode) = (Int(info.st_size), info.st_mtim, UInt64(info.st_ino))
    }

    static func == (left: Stamp, right: Stamp) -> Bool {
        left.size == right.size && left.inode == right.inode && left.modified.tv_sec == right.modified.tv_sec
            && left.modified.tv_nsec == right.modified.tv_nsec
    }
}
