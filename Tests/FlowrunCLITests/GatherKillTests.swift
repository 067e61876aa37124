import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGKILL while a gather command is halfway through the manifest it prints: nothing of it is saved, and the
/// plain rerun runs the gather again over every item and saves the whole manifest. Through the built binary.
@Suite struct GatherKillTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.writeItems(["a", "b"], in: scratch)
        // The gather prints the manifest's first byte, then, until a file `go` exists, stops there (noting its
        // pid, the manifest begun) so the test can kill flowrun in the middle of it.
        try scratch.write(
            "site.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              index:
                type: command
                cache: true
                gather: true
                dependsOn: read
                stdin: true
                argv: [sh, -c, 'printf "["; if [ ! -e go ]; then echo $$ > pid; : > begun; exec sleep 600; fi; cat; echo "]"']
              save: { type: write, path: out/index.txt, dependsOn: index }
            """)
    }

    @Test func aKilledGatherIsRunAgainAndItsManifestSavedWhole() async throws {
        let child = try Child.flowrun(["site.yaml", "--no-progress"], in: scratch.url)
        let begun = await waitUntil(.seconds(300)) { FileManager.default.fileExists(atPath: scratch.path("begun")) }
        #expect(begun, "the gather never started")
        child.signal(SIGKILL)
        let killed = try #require(await child.wait(timeout: .seconds(600)), "flowrun did not exit")
        #expect(killed.terminatedBySignal)
        // The gather's program outlives a SIGKILLed flowrun (nothing is left to stop it); the test stops it.
        if let pid = Int32(try String(contentsOfFile: scratch.path("pid"), encoding: .utf8).trimmed) {
            kill(pid, SIGKILL)
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/index.txt")), "a partial manifest was saved")

        try scratch.write("go", "")
        let rerun = try await Child.runFlowrun(["site.yaml", "--no-progress", "--report", "run.json"], in: scratch.url)
        #expect(rerun.status == 0, "\(rerun.stdout)\(rerun.stderr)")
        let report = try ReportView(scratch.path("run.json"))
        // The reads may or may not have been journalled before the kill; the gather and its write were not.
        #expect(report.status("index") == "succeeded")
        #expect(report.status("save") == "succeeded")
        #expect(try String(contentsOfFile: scratch.path("out/index.txt"), encoding: .utf8) == "[item a\nitem b\n]\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")) == ["index.txt"])

        let again = try await Child.runFlowrun(["site.yaml", "--no-progress"], in: scratch.url)
        #expect(again.stdout.contains("4 nodes: 4 cached"), "\(again.stdout)")
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
