import Foundation
import Testing

/// A `command`'s key includes the content of the files it runs — an `argv` entry naming a file in the workflow's
/// folder tree, and the files its `inputs:` list — so editing its script runs it again, even with `cache: true`.
/// Through the built binary.
@Suite struct CommandCodeKeyTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try scratch.write("scripts/manifest.sh", "cat data/*.txt\n")
        try scratch.write("data/one.txt", "one\n")
        try scratch.write(
            "site.yaml",
            """
            version: 1
            tasks:
              index: { type: command, cache: true, argv: [sh, scripts/manifest.sh], inputs: ["data/*.txt"] }
              manifest: { type: write, path: out/index.txt, dependsOn: index }
            """)
    }

    func run() async throws -> String {
        let result = try await Child.runFlowrun(["site.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return result.stdout
    }

    func manifest() throws -> String {
        try String(contentsOfFile: scratch.path("out/index.txt"), encoding: .utf8)
    }

    @Test func editingTheScriptOrAnInputRunsTheCommandAgain() async throws {
        #expect(try await run().contains("2 nodes: 2 succeeded"))
        #expect(try await run().contains("2 nodes: 2 cached"))
        try scratch.write("scripts/manifest.sh", "echo header; cat data/*.txt\n")
        let edited = try await run()
        #expect(edited.contains("2 nodes: 2 succeeded"), "\(edited)")
        #expect(try manifest() == "header\none\n")
        try scratch.write("data/two.txt", "two\n")
        let added = try await run()
        #expect(added.contains("2 nodes: 2 succeeded"), "\(added)")
        #expect(try manifest() == "header\none\ntwo\n")
        let explain = try await Child.runFlowrun(["explain", "site.yaml", "index"], in: scratch.url)
        #expect(explain.stdout.contains("index (key "), "\(explain.stdout)")
        #expect(explain.stdout.contains("cached: same key as the result of the run of"), "\(explain.stdout)")
    }

    /// A glob that matches nothing is a warning, as a `forEach` glob's is: here a command upstream makes its files.
    @Test func anInputsGlobThatMatchesNothingWarnsWhenACommandRunsFirst() async throws {
        try scratch.write(
            "site.yaml",
            """
            version: 1
            tasks:
              make: { type: command, argv: [sh, -c, "mkdir -p missing && echo two > missing/two.txt"] }
              index:
                { type: command, cache: true, argv: [sh, scripts/manifest.sh], inputs: ["missing/*.txt"], dependsOn: make }
            """)
        let result = try await Child.runFlowrun(["validate", "site.yaml"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("warning: 'inputs' pattern 'missing/*.txt' matches no file"), "\(result.stderr)")
    }
}
