import Foundation
import Testing

/// A node downstream of one that runs every time (a `command` without `cache: true`) is keyed by the digest of
/// what it received: it runs when that changes and stays cached when it does not (early cutoff). Through the built
/// binary, on the repro: a gather command whose script is edited, and the `write` of what it prints.
@Suite struct EarlyCutoffTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.writeItems(["a", "b"], in: scratch)
        try scratch.write(
            "site.yaml",
            Fixtures.copyingWorkflow(
                then: """
                      index: { type: command, gather: true, dependsOn: save, argv: [./gen.sh, "${inputs}"] }
                      manifest: { type: write, path: out/index.txt, dependsOn: index }
                    """))
        try generator(printing: "v1")
    }

    /// `gen.sh` prints `VERSION` and its arguments.
    func generator(printing version: String) throws {
        try scratch.write("gen.sh", "#!/bin/sh\necho \(version) \"$@\"\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path("gen.sh"))
    }

    func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        try await Child.runFlowrun(arguments, in: scratch.url)
    }

    func run() async throws -> String {
        let result = try await flowrun(["site.yaml", "--no-progress"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return result.stdout
    }

    func manifest() throws -> String {
        try String(contentsOfFile: scratch.path("out/index.txt"), encoding: .utf8)
    }

    /// The SHA-256 of some text, as `sha256sum` prints it, to its first eight digits.
    func digest(_ text: String) throws -> String {
        try scratch.write("digest.txt", text)
        let (status, output) = try runToEnd("/usr/bin/sha256sum", [scratch.path("digest.txt")])
        try #require(status == 0)
        return String(output.prefix(8))
    }

    @Test func anEditedScriptRewritesTheManifestAndTheSameOutputLeavesItCached() async throws {
        #expect(try await run().contains("6 nodes: 6 succeeded"))
        #expect(try manifest() == "v1 out/a.txt out/b.txt\n")
        try generator(printing: "v2")
        let edited = try await run()
        #expect(edited.contains("6 nodes: 2 succeeded, 4 cached"), "\(edited)")
        #expect(try manifest() == "v2 out/a.txt out/b.txt\n")
        // It prints the same bytes again: the manifest stays cached.
        let same = try await run()
        #expect(same.contains("6 nodes: 1 succeeded, 5 cached"), "\(same)")
        #expect(try manifest() == "v2 out/a.txt out/b.txt\n")
    }

    @Test func aDryRunSaysTheManifestRunsIfTheCommandsOutputChanges() async throws {
        _ = try await run()
        let dryRun = try await flowrun(["run", "site.yaml", "--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(
            dryRun.stdout.contains("  manifest  0 run, 1 cached (1 runs if index's output changes)\n"),
            "\(dryRun.stdout)")
        let explain = try await flowrun(["explain", "site.yaml", "manifest"])
        #expect(explain.stdout.contains("manifest (key "), "\(explain.stdout)")
        #expect(explain.stdout.contains("runs if index's output changes (index runs every time"), "\(explain.stdout)")
    }

    @Test func aManifestNotWrittenAfterTheCommandChangedSaysWhichDigestChanged() async throws {
        _ = try await run()
        try generator(printing: "v2")
        // The manifest cannot be written this time (a folder is in its place): the command's new output is
        // recorded, the manifest's is not.
        try FileManager.default.removeItem(atPath: scratch.path("out/index.txt"))
        try FileManager.default.createDirectory(
            atPath: scratch.path("out/index.txt"), withIntermediateDirectories: false)
        let failed = try await flowrun(["site.yaml", "--no-progress"])
        #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
        try FileManager.default.removeItem(atPath: scratch.path("out/index.txt"))
        let explain = try await flowrun(["explain", "site.yaml", "manifest"])
        let before = try digest("v1 out/a.txt out/b.txt\n")
        let after = try digest("v2 out/a.txt out/b.txt\n")
        #expect(
            explain.stdout.contains("runs: input from index changed (digest \(before)… → \(after)…)\n"),
            "\(explain.stdout)")
        #expect(try await run().contains("6 nodes: 2 succeeded, 4 cached"))
        #expect(try manifest() == "v2 out/a.txt out/b.txt\n")
    }
}
