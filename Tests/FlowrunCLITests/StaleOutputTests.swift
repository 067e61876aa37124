import Foundation
import Testing

/// `flowrun cache status` and `cache clean --stale`: the files earlier runs wrote that the workflow no longer
/// produces, through the built binary.
@Suite struct StaleOutputTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        for name in ["a", "b", "c"] { try scratch.write("in/\(name).txt", "item \(name)\n") }
        try scratch.write(
            "copy.yaml",
            """
            version: 1
            params: { outDir: out, pause: 1ms }
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              save: { type: write, path: "${params.outDir}/${item.stem}.txt", dependsOn: read }
              pause: { type: sleep, duration: "${params.pause}", dependsOn: save }
            """)
    }

    func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        var result = try await Child.runFlowrun(arguments, in: scratch.url)
        // Recorded paths are absolute: shown here from the scratch folder.
        result.stdout = result.stdout.replacingOccurrences(of: scratch.url.path + "/", with: "")
        return result
    }

    /// What `cache status` says after the store's own lines.
    func staleStatus(_ arguments: [String] = []) async throws -> String {
        let status = try await flowrun(["cache", "status", "copy.yaml"] + arguments)
        #expect(status.status == 0, "\(status.stderr)")
        guard let start = status.stdout.range(of: "stale outputs") else { return status.stdout }
        return String(status.stdout[start.lowerBound...])
    }

    func contents(_ name: String) -> String? { try? String(contentsOfFile: scratch.path(name), encoding: .utf8) }

    @Test func removedItemsLeaveStaleFilesAndOnlyThoseStillAsWrittenAreRemoved() async throws {
        #expect(try await flowrun(["copy.yaml", "--no-progress"]).status == 0)
        #expect(try await staleStatus() == "stale outputs: none\n")
        try FileManager.default.removeItem(atPath: scratch.path("in/b.txt"))
        try FileManager.default.removeItem(atPath: scratch.path("in/c.txt"))
        try scratch.write("out/b.txt", "edited by hand\n")
        let rerun = try await flowrun(["copy.yaml", "--no-progress"])
        #expect(rerun.stdout.contains("3 nodes: 3 cached"), "\(rerun.stdout)")
        #expect(
            try await staleStatus() == """
                stale outputs: 2 files earlier runs wrote that the workflow no longer produces \
                (`flowrun cache clean --stale` removes those that still hold what flowrun wrote):
                  out/b.txt (written by save[in/b.txt]; changed since, so it is kept)
                  out/c.txt (written by save[in/c.txt])

                """)
        let dryRun = try await flowrun(["cache", "clean", "--stale", "--dry-run", "copy.yaml"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(
            dryRun.stdout == """
                would leave out/b.txt (written by save[in/b.txt]): changed since flowrun wrote it
                would remove out/c.txt (written by save[in/c.txt])
                would remove 1 file; would leave 1 file

                """)
        #expect(contents("out/c.txt") == "item c\n", "a dry run removes nothing")
        let topLevel = try await flowrun(["clean", "--stale", "--dry-run", "copy.yaml"])
        #expect(
            topLevel.status == 0 && topLevel.stdout == dryRun.stdout,
            "`flowrun clean --stale` is `flowrun cache clean --stale`")
        let clean = try await flowrun(["cache", "clean", "--stale", "copy.yaml"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(
            clean.stdout == """
                left out/b.txt (written by save[in/b.txt]): changed since flowrun wrote it
                removed out/c.txt (written by save[in/c.txt])
                removed 1 file; left 1 file

                """)
        #expect(contents("out/c.txt") == nil)
        #expect(contents("out/b.txt") == "edited by hand\n")
        #expect(contents("out/a.txt") == "item a\n")
        #expect(
            try await staleStatus() == """
                stale outputs: 1 file earlier runs wrote that the workflow no longer produces \
                (`flowrun cache clean --stale` removes those that still hold what flowrun wrote):
                  out/b.txt (written by save[in/b.txt]; changed since, so it is kept)

                """)
        // The results of what the workflow still produces stay.
        let after = try await flowrun(["copy.yaml", "--no-progress"])
        #expect(after.stdout.contains("3 nodes: 3 cached"), "\(after.stdout)")
    }

    /// An output folder that became a symbolic link: a user's file elsewhere with the bytes flowrun once wrote at
    /// the path was removed through the link. Nothing is removed through a link, and the file is named as left.
    @Test func nothingIsRemovedThroughAnOutputFolderThatBecameALink() async throws {
        #expect(try await flowrun(["copy.yaml", "--no-progress"]).status == 0)
        try FileManager.default.removeItem(atPath: scratch.path("in/c.txt"))
        try FileManager.default.moveItem(atPath: scratch.path("out"), toPath: scratch.path("moved"))
        try scratch.write("elsewhere/c.txt", "item c\n")
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("out"), withDestinationPath: scratch.path("elsewhere"))
        #expect(
            try await staleStatus() == """
                stale outputs: 1 file earlier runs wrote that the workflow no longer produces \
                (`flowrun cache clean --stale` removes those that still hold what flowrun wrote):
                  out/c.txt (written by save[in/c.txt]; reached through the symbolic link out, so it is kept)

                """)
        let clean = try await flowrun(["cache", "clean", "--stale", "copy.yaml"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(
            clean.stdout == """
                left out/c.txt (written by save[in/c.txt]): out is a symbolic link, and flowrun removes nothing \
                through one
                removed 0 files; left 1 file

                """)
        #expect(contents("elsewhere/c.txt") == "item c\n", "the user's file elsewhere stays")
        #expect(contents("moved/c.txt") == "item c\n")
        // The folder made a folder again: the file flowrun wrote is removed where it wrote it.
        try FileManager.default.removeItem(atPath: scratch.path("out"))
        try FileManager.default.moveItem(atPath: scratch.path("moved"), toPath: scratch.path("out"))
        let again = try await flowrun(["cache", "clean", "--stale", "copy.yaml"])
        #expect(again.stdout == "removed out/c.txt (written by save[in/c.txt])\nremoved 1 file; left 0 files\n")
        #expect(contents("out/c.txt") == nil)
        #expect(contents("elsewhere/c.txt") == "item c\n")
    }

    @Test func aChangedPathLeavesTheOldFilesStaleThroughCompaction() async throws {
        #expect(try await flowrun(["copy.yaml", "--no-progress"]).status == 0)
        #expect(try await flowrun(["copy.yaml", "--no-progress", "--param", "outDir=moved"]).status == 0)
        // Compaction keeps the record of every file a node wrote, not only its latest.
        #expect(try await flowrun(["cache", "clean", "--keep-last", "copy.yaml"]).status == 0)
        let listed = """
            stale outputs: 3 files earlier runs wrote that the workflow no longer produces \
            (`flowrun cache clean --stale` removes those that still hold what flowrun wrote):
              out/a.txt (written by save[in/a.txt])
              out/b.txt (written by save[in/b.txt])
              out/c.txt (written by save[in/c.txt])

            """
        #expect(try await staleStatus(["--param", "outDir=moved"]) == listed)
        // Stale is what the workflow, with these parameters, no longer writes.
        #expect(try await staleStatus() == listed.replacingOccurrences(of: "out/", with: "moved/"))
        let clean = try await flowrun(["cache", "clean", "--stale", "copy.yaml", "--param", "outDir=moved"])
        #expect(clean.stdout.hasSuffix("removed 3 files; left 0 files\n"), "\(clean.stdout)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/a.txt")))
        #expect(contents("moved/a.txt") == "item a\n")
        #expect(try await staleStatus(["--param", "outDir=moved"]) == "stale outputs: none\n")
    }

    @Test func cleaningStaleOutputsWhileARunHoldsTheStoreRefuses() async throws {
        #expect(try await flowrun(["copy.yaml", "--no-progress"]).status == 0)
        try FileManager.default.removeItem(atPath: scratch.path("in/c.txt"))
        let running = try Child.flowrun(
            ["copy.yaml", "--no-progress", "--verbose", "--param", "pause=300s"], in: scratch.url)
        #expect(await running.waitForStderr(containing: "pause[in/a.txt] running"), "the run did not start")
        let refused = try await flowrun(["cache", "clean", "--stale", "copy.yaml"])
        #expect(refused.status == 2, "\(refused.stdout)\(refused.stderr)")
        #expect(
            refused.stderr.hasPrefix("error: the store is in use by another flowrun (pid \(running.pid)) (lock "),
            "\(refused.stderr)")
        #expect(refused.stderr.hasSuffix("); wait for it to finish\n"), "a clean has no --state-dir to suggest")
        #expect(contents("out/c.txt") == "item c\n", "nothing is removed while the run holds the store")
        running.signal(SIGINT)
        _ = try #require(await running.wait())
        let clean = try await flowrun(["cache", "clean", "--stale", "copy.yaml"])
        #expect(clean.stdout == "removed out/c.txt (written by save[in/c.txt])\nremoved 1 file; left 0 files\n")
    }

    @Test func staleOutputsNeedTheWholeWorkflow() async throws {
        let clean = try await flowrun(["cache", "clean", "--stale", "copy.yaml", "--target", "save"])
        #expect(clean.status == 2)
        #expect(clean.stderr == "error: stale outputs are those the whole workflow no longer writes; drop --target\n")
        let both = try await flowrun(["cache", "clean", "--stale", "--keep-last", "copy.yaml"])
        #expect(both.status == 2, "\(both.stderr)")
        #expect(
            both.stderr.contains(
                "--stale keeps the store's results already; drop --keep-last, --max-age and --max-size"),
            "\(both.stderr)")
    }
}
