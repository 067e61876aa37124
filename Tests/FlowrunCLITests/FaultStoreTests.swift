import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A damaged, unwritable, full or contended store, through the built binary: the run goes on with a warning,
/// never a crash, never a `cached` status for a file that is not there.
@Suite struct FaultStoreTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("photos"), withIntermediateDirectories: true)
        for name in Fixtures.photoNames {
            try Fixtures.photo(name).write(to: URL(fileURLWithPath: scratch.path("photos/\(name).jpg")))
        }
        try scratch.write("thumbs.yaml", StoreTests.thumbnails)
    }

    var journal: String { scratch.path(".flowrun/thumbs.yaml.journal") }

    func run(_ arguments: [String] = []) async throws -> Flowrun.Result {
        try await Child.runFlowrun(
            ["thumbs.yaml", "--no-progress", "--report", "run.json"] + arguments, in: scratch.url)
    }

    /// The run succeeded, every thumbnail is there and complete, and the report's statuses are final.
    func expectComplete(_ result: Flowrun.Result, _ what: String) throws {
        #expect(result.status == 0, "\(what): \(result.stdout)\(result.stderr)")
        #expect(!result.terminatedBySignal, "\(what)")
        let files = OutputFolder.files(in: scratch.path("out"))
        #expect(files.count == 5, "\(what): \(files)")
        for file in files { #expect(OutputFolder.looksComplete(scratch.path("out/\(file)")), "\(what): \(file)") }
        let report = try ReportView(scratch.path("run.json"))
        #expect(report.unfinished.isEmpty, "\(what)")
        // Never cached without its file.
        for name in Fixtures.photoNames {
            let save = "save[photos/\(name).jpg]"
            #expect(report.status(save) != nil, "\(what): no node \(save) in the report")
            if report.status(save) == "cached" {
                #expect(files.contains("\(name).jpg"), "\(what): \(save) cached, no file")
            }
        }
    }

    func warnings(_ result: Flowrun.Result) -> [Substring] {
        result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
    }

    @Test func aTruncatedJournalIsOneWarningAndTheRestIsReused() async throws {
        try expectComplete(try await run(), "first run")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
        try bytes.prefix(bytes.count - 7).write(to: URL(fileURLWithPath: journal))
        let torn = try await run()
        try expectComplete(torn, "torn journal")
        #expect(warnings(torn).count == 1, "\(torn.stderr)")
        #expect(torn.stderr.contains("ignored a damaged or incomplete record at byte"), "\(torn.stderr)")
        #expect(torn.stdout.contains(" cached"), "most results are still reused: \(torn.stdout)")
        // The damaged tail was cut off and replaced: the next run is clean and reuses everything.
        let after = try await run()
        try expectComplete(after, "after the torn journal")
        #expect(after.stderr.isEmpty, "\(after.stderr)")
        #expect(after.stdout.contains("26 nodes: 26 cached"), "\(after.stdout)")
    }

    @Test func aCorruptByteInTheJournalIsNeverTrusted() async throws {
        try expectComplete(try await run(), "first run")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: journal)))
        bytes[bytes.count / 2] ^= 0x5A
        try Data(bytes).write(to: URL(fileURLWithPath: journal))
        let result = try await run()
        try expectComplete(result, "corrupt journal")
        #expect(warnings(result).count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("ignored a damaged or incomplete record"), "\(result.stderr)")
        #expect(try await run().stdout.contains("26 nodes: 26 cached"))
    }

    @Test func aJournalOfGarbageMeansAColdStart() async throws {
        try FileManager.default.createDirectory(atPath: scratch.path(".flowrun"), withIntermediateDirectories: true)
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: journal))
        let result = try await run()
        try expectComplete(result, "garbage journal")
        #expect(result.stdout.contains("26 nodes: 26 succeeded"), "\(result.stdout)")
        #expect(
            warnings(result) == [
                "warning: store .flowrun: the journal is not one this flowrun writes (or its start is damaged); starting afresh"
            ], "\(result.stderr)")
        let again = try await run()
        #expect(again.stderr.isEmpty, "\(again.stderr)")
        #expect(again.stdout.contains("26 nodes: 26 cached"))
    }

    @Test func aStoreThatCannotBeCreatedMeansARunWithoutIt() async throws {
        // As root, chmod cannot make a folder unwritable: a store under a regular file cannot be created by anyone.
        try scratch.write("blocker", "a regular file")
        let result = try await run(["--state-dir", "blocker/state"])
        try expectComplete(result, "unusable store")
        #expect(result.stdout.contains("26 nodes: 26 succeeded"))
        #expect(warnings(result).count == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "warning: cannot use the store: cannot create blocker/state: Not a directory; running without it"),
            "\(result.stderr)")
    }

    /// A folder where the journal goes is refused as the store's own files are (never a link, a FIFO, another
    /// user's file), with the way out, rather than reported as a failed open.
    @Test func aFolderInPlaceOfTheJournalMeansARunWithoutIt() async throws {
        try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: true)
        let result = try await run()
        try expectComplete(result, "a folder for a journal")
        #expect(result.stdout.contains("26 nodes: 26 succeeded"))
        #expect(
            warnings(result) == [
                "warning: cannot use the store: the store's file .flowrun/thumbs.yaml.journal cannot be used: Is a "
                    + "directory; remove it, or give this run another --state-dir; running without it (nothing is "
                    + "reused or recorded)"
            ], "\(result.stderr)")
    }

    @Test(.enabled(if: FaultInjectionTests.canMountTmpfs, "needs root and permission to mount a tmpfs"))
    func aStoreOnAReadOnlyFilesystemMeansARunWithoutIt() async throws {
        let disk = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try #require(mount("tmpfs", disk, "tmpfs", 0, "size=64k") == 0, "mount: \(String(cString: strerror(errno)))")
        defer { umount2(disk, Int32(MNT_DETACH)) }
        try #require(
            mount("tmpfs", disk, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), "size=64k") == 0,
            "remount read-only: \(String(cString: strerror(errno)))")
        let result = try await run(["--state-dir", "disk/state"])
        try expectComplete(result, "read-only store")
        #expect(warnings(result).count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("Read-only file system; running without it"), "\(result.stderr)")
    }

    @Test(.enabled(if: FaultInjectionTests.canMountTmpfs, "needs root and permission to mount a tmpfs"))
    func aFullDiskWhileJournalingIsOneWarningAndCorrectOutputs() async throws {
        let disk = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try #require(mount("tmpfs", disk, "tmpfs", 0, "size=8k") == 0, "mount: \(String(cString: strerror(errno)))")
        defer { umount2(disk, Int32(MNT_DETACH)) }
        let result = try await run(["--state-dir", "disk"])
        try expectComplete(result, "full store")
        #expect(result.stdout.contains("26 nodes: 26 succeeded"))
        #expect(warnings(result).count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("No space left on device"), "\(result.stderr)")
        // What did fit is trusted as far as it is intact; the rest runs again, and nothing crashes.
        let again = try await run(["--state-dir", "disk"])
        try expectComplete(again, "after the full store")
    }

    @Test func aSecondRunOnTheSameStoreWaitsOrRefuses() async throws {
        try scratch.write(
            "slow.yaml",
            """
            version: 1
            tasks:
              wait: { type: sleep, duration: 3600s }
            """)
        // An hour, ended by the SIGINT below: under load the runs in between have taken past 300 s.
        let first = try Child.flowrun(["slow.yaml", "--no-progress", "--verbose"], in: scratch.url)
        #expect(await first.waitForStderr(containing: "wait running"), "the first run did not start")
        let second = try await Child.runFlowrun(["slow.yaml", "--no-progress"], in: scratch.url)
        #expect(second.status == 2, "\(second.stdout)\(second.stderr)")
        #expect(
            second.stderr.contains("error: the store is in use by another flowrun (pid \(first.pid))"),
            "\(second.stderr)")
        #expect(
            second.stderr.hasSuffix(
                "; wait for it to finish, or give this run its own --state-dir (or --no-cache); nothing was run\n"),
            "\(second.stderr)")
        #expect(second.stdout.isEmpty)
        // Another workflow in the same folder has its own journal and lock, and is not held up.
        let other = try await run()
        #expect(other.status == 0, "\(other.stderr)")
        first.signal(SIGINT)
        let ended = try #require(await first.wait())
        #expect(ended.status == 130)
        // The lock went with the process: the next run takes it at once.
        try scratch.write("slow.yaml", "version: 1\ntasks:\n  wait: { type: sleep, duration: 10ms }\n")
        #expect(try await Child.runFlowrun(["slow.yaml", "--no-progress"], in: scratch.url).status == 0)
    }

    /// A modification time in the future is a stamp like any other: the same bytes stay cached, new bytes rerun
    /// the chain once.
    @Test func aSourceModifiedInTheFutureRerunsItsChainOnlyForNewBytes() async throws {
        try expectComplete(try await run(), "first run")
        var times = [timespec(tv_sec: 4_000_000_000, tv_nsec: 0), timespec(tv_sec: 4_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, scratch.path("photos/friends.jpg"), &times, 0) == 0)
        let touched = try await run()
        try expectComplete(touched, "future mtime")
        #expect(touched.stdout.contains("26 nodes: 26 cached"), "\(touched.stdout)")

        try Fixtures.photo("wine").write(to: URL(fileURLWithPath: scratch.path("photos/friends.jpg")))
        #expect(utimensat(AT_FDCWD, scratch.path("photos/friends.jpg"), &times, 0) == 0)
        let edited = try await run()
        try expectComplete(edited, "new bytes, future mtime")
        #expect(edited.stdout.contains("26 nodes: 6 succeeded, 20 cached"), "\(edited.stdout)")
        #expect(try await run().stdout.contains("26 nodes: 26 cached"))
    }

    @Test func aDeletedOutputIsNeverReportedCached() async throws {
        try expectComplete(try await run(), "first run")
        try FileManager.default.removeItem(atPath: scratch.path("out"))
        let result = try await run()
        try expectComplete(result, "outputs deleted")
        #expect(result.stdout.contains("26 nodes: 25 succeeded, 1 cached"), "\(result.stdout)")
        #expect(try ReportView(scratch.path("run.json")).status("report") == "cached")
    }
}
