import Foundation
import Testing

/// A `command` that reads nothing of its dependencies (no `stdin`) needs only that they finished: when it runs,
/// they are judged on their own records, not run for it. Through the built binary.
@Suite struct StoreCommandInputTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.writeItems(["a", "b", "c"], in: scratch)
    }

    func workflow(stdin: Bool, after dependency: String = "save") throws {
        try scratch.write(
            "list.yaml",
            Fixtures.copyingWorkflow(
                then: """
                      list:
                        type: command
                        gather: true
                        dependsOn: \(dependency)
                        stdin: \(stdin)
                        argv: [sh, -c, "cat > /dev/null; ls out > list.txt"]
                    """))
    }

    func run() async throws -> Flowrun.Result {
        try await Child.runFlowrun(["list.yaml", "--no-progress"], in: scratch.url)
    }

    @Test func anUncachedCommandWithoutStdinRerunsAlone() async throws {
        try workflow(stdin: false)
        #expect(try await run().stdout.contains("7 nodes: 7 succeeded"))
        let again = try await run()
        #expect(again.stdout.contains("7 nodes: 1 succeeded, 6 cached"), "\(again.stdout)")
        try scratch.write("in/d.txt", "item d\n")
        let added = try await run()
        #expect(added.stdout.contains("9 nodes: 3 succeeded, 6 cached"), "\(added.stdout)")
        #expect(try String(contentsOfFile: scratch.path("list.txt"), encoding: .utf8) == "a.txt\nb.txt\nc.txt\nd.txt\n")
    }

    @Test func aCommandFedItsInputsNeedsThemRun() async throws {
        try workflow(stdin: true, after: "read")
        #expect(try await run().stdout.contains("7 nodes: 7 succeeded"))
        let again = try await run()
        // What it reads runs with it; the writes beside them are judged on their records.
        #expect(again.stdout.contains("7 nodes: 4 succeeded, 3 cached"), "\(again.stdout)")
    }

    @Test func anUncachedCommandNamingCachedWritesGetsTheirRecordedFiles() async throws {
        try scratch.write(
            "list.yaml",
            Fixtures.copyingWorkflow(
                then: """
                      list:
                        type: command
                        gather: true
                        dependsOn: save
                        argv: [sh, -c, 'printf "%s\\n" "$@" > listed.txt', sh, "${inputs}"]
                    """))
        let listed = { try String(contentsOfFile: self.scratch.path("listed.txt"), encoding: .utf8) }
        #expect(try await run().stdout.contains("7 nodes: 7 succeeded"))
        #expect(try listed() == "out/a.txt\nout/b.txt\nout/c.txt\n")
        try FileManager.default.removeItem(atPath: scratch.path("listed.txt"))
        // The writes are cached and their recorded files serve the command: nothing upstream runs.
        let again = try await run()
        #expect(again.stdout.contains("7 nodes: 1 succeeded, 6 cached"), "\(again.stdout)")
        #expect(try listed() == "out/a.txt\nout/b.txt\nout/c.txt\n")
        try scratch.write("in/d.txt", "item d\n")
        let added = try await run()
        #expect(added.stdout.contains("9 nodes: 3 succeeded, 6 cached"), "\(added.stdout)")
        #expect(try listed() == "out/a.txt\nout/b.txt\nout/c.txt\nout/d.txt\n")
    }
}

/// A per-item `command` after the `write`s (to index each output) gets the files they recorded: nothing upstream
/// runs for it, and with `cache: true` on it nothing runs at all. Through the built binary.
@Suite struct PerItemCommandAfterWritesTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.writeItems(["a", "b", "c"], in: scratch)
    }

    func workflow(cache: Bool?) throws {
        try scratch.write(
            "index.yaml",
            Fixtures.copyingWorkflow(
                then: """
                      index:
                        type: command
                        dependsOn: save
                        argv: [sh, -c, 'echo "$1" >> indexed.txt', sh, "${input}"]
                    \(cache.map { "    cache: \($0)\n" } ?? "")
                    """))
    }

    func run() async throws -> String {
        let result = try await Child.runFlowrun(["index.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return result.stdout
    }

    func indexed() throws -> [String] {
        try String(contentsOfFile: scratch.path("indexed.txt"), encoding: .utf8).split(separator: "\n").map(String.init)
            .sorted()
    }

    @Test func itRunsAloneOnTheRecordedFiles() async throws {
        try workflow(cache: nil)
        #expect(try await run().contains("9 nodes: 9 succeeded"))
        try FileManager.default.removeItem(atPath: scratch.path("indexed.txt"))
        let again = try await run()
        #expect(again.contains("9 nodes: 3 succeeded, 6 cached"), "\(again)")
        #expect(try indexed() == ["out/a.txt", "out/b.txt", "out/c.txt"])
        let explain = try await Child.runFlowrun(["explain", "index.yaml", "save[in/a.txt]"], in: scratch.url)
        #expect(explain.stdout.contains("save[in/a.txt] (key "), "\(explain.stdout)")
        #expect(explain.stdout.contains("): cached: same key as the result of the run of "), "\(explain.stdout)")
    }

    @Test func addedWithCacheTrueItReencodesNothing() async throws {
        try workflow(cache: nil)
        _ = try await run()
        try workflow(cache: true)
        try FileManager.default.removeItem(atPath: scratch.path("indexed.txt"))
        let added = try await run()
        #expect(added.contains("9 nodes: 3 succeeded, 6 cached"), "\(added)")
        #expect(try await run().contains("9 nodes: 9 cached"))
    }
}
