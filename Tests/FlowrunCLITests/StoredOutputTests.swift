import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `cache: true` through the built binary: outputs kept as blobs and reused by a later run, and blobs that are
/// gone, damaged or cannot be written — a warning and a rerun of their node, never a wrong output.
@Suite struct StoredOutputTests {
    let scratch: Scratch

    /// The thumbnails of ``StoreTests/thumbnails`` with `cache: true` on `decode`, and the thumbnail width a
    /// parameter.
    static let workflow = StoreTests.thumbnails
        .replacingOccurrences(of: "intensity: 0.8", with: "intensity: 0.8\n  width: 32")
        .replacingOccurrences(of: "type: decode, dependsOn: fetch", with: "type: decode, dependsOn: fetch, cache: true")
        .replacingOccurrences(of: "width: 32, dependsOn: tone", with: "width: \"${params.width}\", dependsOn: tone")

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("photos"), withIntermediateDirectories: true)
        for name in Fixtures.photoNames {
            try Fixtures.photo(name).write(to: URL(fileURLWithPath: scratch.path("photos/\(name).jpg")))
        }
        try scratch.write("thumbs.yaml", Self.workflow)
    }

    func run(_ arguments: [String] = []) async throws -> Flowrun.Result {
        try await Child.runFlowrun(
            ["thumbs.yaml", "--no-progress", "--report", "run.json"] + arguments, in: scratch.url)
    }

    var blobs: String { scratch.path(".flowrun/blobs") }

    /// The blob files, by path under the blobs folder.
    func blobFiles() -> [String] {
        OutputFolder.files(in: blobs).filter { !$0.hasPrefix(".") }
    }

    /// The ids of the last report's nodes of a task with a status.
    func nodes(of task: String, _ status: String) throws -> Int {
        let report = try ReportView(scratch.path("run.json"))
        return report.ids.filter { $0.hasPrefix(task + "[") && report.status($0) == status }.count
    }

    /// The run succeeded, and its thumbnails are byte for byte those of a run without the store.
    func expectSameAsAColdRun(_ result: Flowrun.Result, _ arguments: [String], _ what: String) async throws {
        #expect(result.status == 0, "\(what): \(result.stdout)\(result.stderr)")
        let made = try ShardCommandTests.contents(of: scratch.path("out"))
        #expect(made.count == 5, "\(what)")
        try FileManager.default.removeItem(atPath: scratch.path("out"))
        let cold = try await Child.runFlowrun(
            ["thumbs.yaml", "--no-progress", "--no-cache"] + arguments, in: scratch.url)
        #expect(cold.status == 0, "\(cold.stderr)")
        #expect(try ShardCommandTests.contents(of: scratch.path("out")) == made, "\(what): not what a cold run makes")
    }

    func warnings(_ result: Flowrun.Result) -> [Substring] {
        result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
    }

    @Test func aChangedParameterReusesTheDecodedImages() async throws {
        let first = try await run()
        #expect(first.stdout.contains("26 nodes: 26 succeeded"), "\(first.stdout)\(first.stderr)")
        #expect(blobFiles().count == 5)
        let status = try await Child.runFlowrun(["cache", "status", "thumbs.yaml"], in: scratch.url)
        #expect(status.stdout.contains("stored outputs: 5 of this workflow; 5 blobs in the store"), "\(status.stdout)")
        let explain = try await Child.runFlowrun(
            ["explain", "thumbs.yaml", "decode[photos/aitzgorri.jpg]", "--param", "intensity=0.5"], in: scratch.url)
        #expect(explain.stdout.contains("bytes) is read back for its readers"), "\(explain.stdout)")

        let changed = try await run(["--param", "intensity=0.5"])
        #expect(changed.stderr.isEmpty, "\(changed.stderr)")
        // No decode (nor the fetch it reads) ran: every decoded image came back from the store.
        #expect(changed.stdout.contains("26 nodes: 16 succeeded, 10 cached"), "\(changed.stdout)")
        #expect(try nodes(of: "decode", "cached") == 5)
        #expect(try nodes(of: "tone", "succeeded") == 5)
        #expect(try nodes(of: "save", "succeeded") == 5)
        try await expectSameAsAColdRun(changed, ["--param", "intensity=0.5"], "decoded images reused")
    }

    /// A blob or report temporary that `kill -9` left has no live writer holding its lock: the next run that
    /// opens the store (or writes that report) removes it, even when every node is cached; look-alikes stay.
    @Test func temporariesAKilledRunLeftAreRemovedByTheNextRun() async throws {
        #expect(try await run().status == 0)
        let strangers = [".flowrun-blob.toolong7", ".flowrun-blobs.Abc123", "flowrun-blob.Abc123"]
        for name in [".flowrun-blob.Dead01", ".flowrun-blob.Dead02"] + strangers {
            #expect(FileManager.default.createFile(atPath: blobs + "/" + name, contents: Data("partial".utf8)))
        }
        #expect(FileManager.default.createFile(atPath: scratch.path(".flowrun-run.json.Dead03"), contents: Data()))
        let again = try await run()
        #expect(again.stdout.contains("26 nodes: 26 cached"), "\(again.stdout)")
        let left = try FileManager.default.contentsOfDirectory(atPath: blobs).filter { $0.count > 2 }.sorted()
        #expect(left == strangers.sorted())
        #expect(!FileManager.default.fileExists(atPath: scratch.path(".flowrun-run.json.Dead03")))
    }

    @Test func aDecodedImageIsNotReusedForConsumersThatNeedAnotherScale() async throws {
        #expect(try await run().status == 0)
        // 32 px wide thumbnails let decode shrink on load; 600 px ones need the full picture.
        let explain = try await Child.runFlowrun(
            ["explain", "thumbs.yaml", "decode[photos/aitzgorri.jpg]", "--param", "width=600"], in: scratch.url)
        #expect(
            explain.stdout.contains("its stored output was made for other consumers (scale 1/8 → scale 1/1)"),
            "\(explain.stdout)")
        let wider = try await run(["--param", "width=600"])
        #expect(try nodes(of: "decode", "succeeded") == 5)
        try await expectSameAsAColdRun(wider, ["--param", "width=600"], "another scale")
        // Each scale has its blobs; cleaning superseded results drops the old ones.
        #expect(blobFiles().count == 10)
        let clean = try await Child.runFlowrun(["cache", "clean", "--keep-last", "thumbs.yaml"], in: scratch.url)
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(blobFiles().count == 5)
        #expect(try await run(["--param", "width=600", "--param", "intensity=0.4"]).status == 0)
        #expect(try nodes(of: "decode", "cached") == 5)
        #expect(try await Child.runFlowrun(["cache", "clean", "thumbs.yaml"], in: scratch.url).status == 0)
        #expect(blobFiles().isEmpty)
    }

    @Test func deletedBlobsAreOneWarningAndTheirNodesRun() async throws {
        #expect(try await run().status == 0)
        try FileManager.default.removeItem(atPath: blobs)
        let result = try await run(["--param", "intensity=0.5"])
        #expect(warnings(result).count == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "warning: 5 stored outputs cannot be used, so their nodes run again: decode[photos/aitzgorri.jpg]: blob"
            ))
        #expect(result.stderr.contains("is missing"))
        #expect(try nodes(of: "decode", "succeeded") == 5)
        #expect(try nodes(of: "fetch", "succeeded") == 5)
        // They were stored again.
        let again = try await run(["--param", "intensity=0.3"])
        #expect(again.stderr.isEmpty, "\(again.stderr)")
        #expect(try nodes(of: "decode", "cached") == 5)
        try await expectSameAsAColdRun(again, ["--param", "intensity=0.3"], "after deleted blobs")
    }

    @Test func aCorruptBlobIsNeverTrusted() async throws {
        #expect(try await run().status == 0)
        let damaged = try #require(blobFiles().first)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: blobs + "/" + damaged)))
        bytes[bytes.count - 100] ^= 0x20  // a pixel: the blob still parses, only its hash tells
        try Data(bytes).write(to: URL(fileURLWithPath: blobs + "/" + damaged))
        let result = try await run(["--param", "intensity=0.5"])
        #expect(warnings(result).count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("warning: 1 stored output cannot be used, so its node runs again: decode["))
        #expect(result.stderr.contains("is damaged: its SHA-256 does not match its name"))
        #expect(try nodes(of: "decode", "succeeded") == 1)
        #expect(try nodes(of: "decode", "cached") == 4)
        try await expectSameAsAColdRun(result, ["--param", "intensity=0.5"], "corrupt blob")
    }

    @Test func anUnwritableBlobFolderIsOneWarningAndARunWithoutBlobs() async throws {
        // As root, chmod cannot make a folder unwritable: a regular file where the blobs folder goes stops anyone.
        try FileManager.default.createDirectory(atPath: scratch.path(".flowrun"), withIntermediateDirectories: true)
        try scratch.write(".flowrun/blobs", "in the way")
        let result = try await run()
        #expect(result.stdout.contains("26 nodes: 26 succeeded"), "\(result.stdout)")
        #expect(warnings(result).count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("warning: cannot create"), "\(result.stderr)")
        #expect(result.stderr.contains("outputs with `cache: true` are not kept in this run, and run again next time"))
        // The rest of the store works: an unchanged run reuses everything; a changed one decodes again.
        #expect(try await run().stdout.contains("26 nodes: 26 cached"))
        let changed = try await run(["--param", "intensity=0.5"])
        #expect(try nodes(of: "decode", "succeeded") == 5)
        try await expectSameAsAColdRun(changed, ["--param", "intensity=0.5"], "no blobs")
    }

    @Test(.enabled(if: FaultInjectionTests.canMountTmpfs, "needs root and permission to mount a tmpfs"))
    func aReadOnlyBlobFolderIsOneWarningAndARunWithoutBlobs() async throws {
        try FileManager.default.createDirectory(atPath: blobs, withIntermediateDirectories: true)
        try #require(mount("tmpfs", blobs, "tmpfs", 0, "size=64k") == 0, "mount: \(String(cString: strerror(errno)))")
        defer { umount2(blobs, Int32(MNT_DETACH)) }
        try #require(
            mount("tmpfs", blobs, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), "size=64k") == 0,
            "remount read-only: \(String(cString: strerror(errno)))")
        let result = try await run()
        #expect(result.stdout.contains("26 nodes: 26 succeeded"), "\(result.stdout)")
        #expect(warnings(result).count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("Read-only file system"), "\(result.stderr)")
        #expect(try await run().stdout.contains("26 nodes: 26 cached"))
    }
}
