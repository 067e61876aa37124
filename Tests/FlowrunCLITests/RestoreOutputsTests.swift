import FlowKit
import Foundation
import Testing

/// `--keep-outputs`: the store keeps a copy of every written file, so an output that went missing is put back from
/// it, checked against its digest, instead of being made again with its chain; a copy that is damaged is a warning
/// and the chain runs; `--no-restore` makes it again.
@Suite struct RestoreOutputsTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try scratch.writeCopyWorkflow()
    }

    /// Runs `flow.yaml` with the store in `store/`; gives the result and the summary's last line without its
    /// duration.
    private func run(_ extra: [String] = ["--keep-outputs"]) async throws -> (Flowrun.Result, String) {
        let result = try await Child.runFlowrun(
            ["flow.yaml", "--no-progress", "--state-dir", "store"] + extra, in: scratch.url)
        let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return (result, last.replacing(#/ in [0-9.]+m?s$/#, with: ""))
    }

    /// Where the store keeps its copy of a file holding `text`, relative to the scratch folder.
    private func copy(of text: String) -> String {
        let digest = ContentDigest.of(Data(text.utf8))
        return "store/files/\(digest.prefix(2))/\(digest)"
    }

    @Test func aDeletedOutputFolderIsRestoredWithoutRunningItsChain() async throws {
        let (first, firstSummary) = try await run()
        #expect(first.status == 0 && firstSummary == "6 nodes: 6 succeeded", "\(first.stdout)\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.path(copy(of: "photo a\n"))))
        try FileManager.default.removeItem(atPath: scratch.path("out"))

        let dryRun = try await Child.runFlowrun(
            ["--dry-run", "flow.yaml", "--state-dir", "store", "--keep-outputs"], in: scratch.url)
        #expect(
            dryRun.stdout.hasSuffix(
                """
                store store: 6 results recorded; 0 nodes will run, 3 cached, 3 restored
                  read  0 run, 3 cached
                  save  0 run, 0 cached, 3 restored

                valid: nothing was fetched, decoded or written

                """), "\(dryRun.stdout)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "the dry run wrote")

        let (second, summary) = try await run()
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second.stdout)\(second.stderr)")
        #expect(summary == "6 nodes: 3 cached, 3 restored", "\(second.stdout)")
        for name in ["a", "b", "c"] {
            #expect(try String(contentsOfFile: scratch.path("out/\(name).txt"), encoding: .utf8) == "photo \(name)\n")
        }
        let restored = try #require(Stamp(scratch.path("out/a.txt")))

        let (third, thirdSummary) = try await run()
        #expect(third.status == 0 && thirdSummary == "6 nodes: 6 cached", "\(third.stdout)\(third.stderr)")
        #expect(Stamp(scratch.path("out/a.txt")) == restored, "a restored file was written again")
    }

    @Test func aDamagedCopyIsAWarningAndItsChainRuns() async throws {
        #expect(try await run().0.status == 0)
        try FileManager.default.removeItem(atPath: scratch.path("out/a.txt"))
        try Data("PHOTO a\n".utf8).write(to: URL(fileURLWithPath: scratch.path(copy(of: "photo a\n"))))

        let (second, summary) = try await run()
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(summary == "6 nodes: 2 succeeded, 4 cached", "\(second.stdout)")
        #expect(
            second.stderr == """
                warning: 1 written file cannot be restored from store/files, so its node runs again: out/a.txt: \
                \(copy(of: "photo a\n")) is damaged: its \
                SHA-256 does not match its name

                """)
        #expect(try String(contentsOfFile: scratch.path("out/a.txt"), encoding: .utf8) == "photo a\n")
    }

    @Test func noRestoreMakesAMissingOutputAgain() async throws {
        #expect(try await run().0.status == 0)
        try FileManager.default.removeItem(atPath: scratch.path("out/b.txt"))
        let (second, summary) = try await run(["--keep-outputs", "--no-restore"])
        #expect(second.status == 0 && summary == "6 nodes: 2 succeeded, 4 cached", "\(second.stdout)\(second.stderr)")
    }

    /// Without `--keep-outputs` a store in a folder keeps no copies, and a missing output runs as before.
    @Test func withoutKeepOutputsNothingIsCopiedAndAMissingOutputRuns() async throws {
        #expect(try await run([]).0.status == 0)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("store/files")))
        try FileManager.default.removeItem(atPath: scratch.path("out/c.txt"))
        let (second, summary) = try await run([])
        #expect(second.status == 0 && summary == "6 nodes: 2 succeeded, 4 cached", "\(second.stdout)\(second.stderr)")
    }

    /// What stands where a missing output was — here a folder — is the user's: it is never replaced, and the
    /// node that writes there fails as it would without a store.
    @Test func somethingInTheWayIsLeftAsItIs() async throws {
        #expect(try await run().0.status == 0)
        try FileManager.default.removeItem(atPath: scratch.path("out"))
        try FileManager.default.createDirectory(atPath: scratch.path("out/a.txt"), withIntermediateDirectories: true)
        let (second, summary) = try await run()
        #expect(second.status == 1, "\(second.stdout)\(second.stderr)")
        #expect(summary == "6 nodes: 1 succeeded, 2 cached, 2 restored, 1 failed", "\(second.stdout)")
        #expect(
            second.stderr == """
                warning: 1 written file cannot be restored from store/files, so its node runs again: out/a.txt: \
                something else is in its place, which is left as it is

                """)
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: scratch.path("out/a.txt"), isDirectory: &isFolder))
        #expect(isFolder.boolValue)
    }
}
