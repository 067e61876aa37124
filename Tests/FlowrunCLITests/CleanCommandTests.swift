import Foundation
import Testing

/// `flowrun clean WORKFLOW` is what `make clean` means: it removes the files the runs wrote where they still hold
/// what flowrun wrote, asks first on a terminal and needs `--yes` without one; `flowrun cache clear` forgets the
/// results, asking the same way. Whole outputs, through the binary, with and without a terminal (`script`).
@Suite struct CleanCommandTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        for name in ["a", "b", "c"] { try scratch.write("in/\(name).txt", "item \(name)\n") }
        try scratch.write(
            "copy.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              save: { type: write, path: "out/${item.stem}.txt", dependsOn: read }
            """)
    }

    func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        var result = try await Child.runFlowrun(arguments, in: scratch.url)
        result.stdout = result.stdout.replacingOccurrences(of: scratch.url.path + "/", with: "")
        result.stderr = result.stderr.replacingOccurrences(of: scratch.url.path + "/", with: "")
        return result
    }

    /// `flowrun ARGS` on a terminal of its own (`script`), answering `answer`: what the terminal showed, its line
    /// ends made `\n`, and the exit status.
    func onATerminal(_ arguments: [String], answer: String) async throws -> (output: String, status: Int32) {
        let command = ([Flowrun.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let child = try Child(
            executable: URL(fileURLWithPath: "/bin/sh"),
            ["-c", "printf '\(answer)\\n' | script -qfeEnever -c \"\(command)\" /dev/null"], in: scratch.url)
        let result = try #require(await child.wait(), "flowrun did not finish on a terminal")
        let output = result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: scratch.url.path + "/", with: "")
        return (output, result.status)
    }

    func contents(_ name: String) -> String? { try? String(contentsOfFile: scratch.path(name), encoding: .utf8) }

    /// What `cache status` says of stale outputs.
    func staleStatus() async throws -> String {
        let status = try await flowrun(["cache", "status", "copy.yaml"])
        guard let start = status.stdout.range(of: "stale outputs") else { return status.stdout }
        return String(status.stdout[start.lowerBound...])
    }

    /// A first run; then `b` is left out of the workflow and its output edited by hand, `c` left out as written.
    func runAndLeaveStaleOutputs() async throws {
        #expect(try await flowrun(["copy.yaml", "--no-progress"]).status == 0)
        try FileManager.default.removeItem(atPath: scratch.path("in/b.txt"))
        try FileManager.default.removeItem(atPath: scratch.path("in/c.txt"))
        try scratch.write("out/b.txt", "edited by hand\n")
        #expect(try await flowrun(["copy.yaml", "--no-progress"]).status == 0)
    }

    static let listed = """
        would remove out/a.txt (written by save[in/a.txt])
        would leave out/b.txt (written by save[in/b.txt]): changed since flowrun wrote it
        would remove out/c.txt (written by save[in/c.txt])
        would remove 2 files; would leave 1 file

        """

    static let removed = """
        removed out/a.txt (written by save[in/a.txt])
        left out/b.txt (written by save[in/b.txt]): changed since flowrun wrote it
        removed out/c.txt (written by save[in/c.txt])
        removed 2 files; left 1 file

        """

    /// Without a terminal: `flowrun clean` (once the store's emptying) refuses without `--yes`, naming
    /// `cache clear`; `--dry-run` lists; `--yes` removes what still holds what flowrun wrote, and the store still
    /// knows the file it left; the next run writes the files again.
    @Test func withoutATerminalCleanNeedsYesAndKeepsTheStore() async throws {
        try await runAndLeaveStaleOutputs()
        let refused = try await flowrun(["clean", "copy.yaml"])
        #expect(refused.status == 2)
        #expect(refused.stdout == "")
        #expect(
            refused.stderr == """
                error: flowrun clean removes the 2 files the runs of copy.yaml wrote (--dry-run lists them); give \
                --yes to remove them, as no terminal can ask. Forgetting the store's results, what `flowrun clean` \
                did before, is `flowrun cache clear`

                """)
        #expect(contents("out/a.txt") == "item a\n")
        let dryRun = try await flowrun(["clean", "--dry-run", "copy.yaml"])
        #expect(dryRun.status == 0 && dryRun.stderr == "", "\(dryRun.stderr)")
        #expect(dryRun.stdout == Self.listed)
        #expect(contents("out/c.txt") == "item c\n")
        let clean = try await flowrun(["clean", "--yes", "copy.yaml"])
        #expect(clean.status == 0 && clean.stderr == "", "\(clean.stderr)")
        #expect(clean.stdout == Self.removed)
        #expect(contents("out/a.txt") == nil && contents("out/c.txt") == nil)
        #expect(contents("out/b.txt") == "edited by hand\n")
        #expect(
            try await staleStatus() == """
                stale outputs: 1 file earlier runs wrote that the workflow no longer produces \
                (`flowrun cache clean --stale` removes those that still hold what flowrun wrote):
                  out/b.txt (written by save[in/b.txt]; changed since, so it is kept)

                """)
        let again = try await flowrun(["clean", "copy.yaml"])
        #expect(again.status == 0 && again.stderr == "")
        #expect(
            again.stdout == """
                would leave out/b.txt (written by save[in/b.txt]): changed since flowrun wrote it
                would remove 0 files; would leave 1 file

                """)
        #expect(try await flowrun(["copy.yaml", "--no-progress"]).status == 0)
        #expect(contents("out/a.txt") == "item a\n")
        let old = try await flowrun(["clean", "--keep-last", "copy.yaml"])
        #expect(old.status == 2)
        #expect(
            old.stderr.hasPrefix(
                "Error: flowrun clean removes the files the workflow wrote now; dropping superseded results is "
                    + "`flowrun cache clean --keep-last`\n"), "\(old.stderr)")
    }

    @Test func withoutATerminalCacheClearNeedsYes() async throws {
        try await runAndLeaveStaleOutputs()
        let refused = try await flowrun(["cache", "clear", "copy.yaml"])
        #expect(refused.status == 2)
        #expect(
            refused.stderr == """
                error: cache clear forgets the 6 results of copy.yaml in the store (the next run runs everything); \
                give --yes to forget them, as no terminal can ask

                """)
        let dryRun = try await flowrun(["cache", "clear", "--dry-run", "copy.yaml"])
        #expect(dryRun.stdout == "would forget 6 results of copy.yaml; the files they wrote stay\n")
        let clear = try await flowrun(["cache", "clear", "--yes", "copy.yaml"])
        #expect(clear.status == 0, "\(clear.stderr)")
        #expect(
            clear.stdout.hasPrefix("cleared; store .flowrun: 0 results (0 records in the journal)"), "\(clear.stdout)")
        #expect(contents("out/a.txt") == "item a\n", "the files stay")
        #expect(try await flowrun(["cache", "clear", "copy.yaml"]).stdout == "no results of copy.yaml to forget\n")
    }

    /// On a terminal: the list, the question, and the answer's effect.
    @Test func onATerminalCleanAndCacheClearAsk() async throws {
        try await runAndLeaveStaleOutputs()
        let declined = try await onATerminal(["clean", "copy.yaml"], answer: "n")
        #expect(declined.status == 0)
        #expect(declined.output == Self.listed + "Remove 2 files? [y/N] nothing removed\n")
        #expect(contents("out/a.txt") == "item a\n")
        let accepted = try await onATerminal(["clean", "copy.yaml"], answer: "y")
        #expect(accepted.status == 0)
        #expect(accepted.output == Self.listed + "Remove 2 files? [y/N] " + Self.removed)
        #expect(contents("out/a.txt") == nil)
        let keep = try await onATerminal(["cache", "clear", "copy.yaml"], answer: "")
        #expect(
            keep.output == "Forget 6 results of copy.yaml (the next run runs everything)? [y/N] nothing forgotten\n")
        let clear = try await onATerminal(["cache", "clear", "copy.yaml"], answer: "yes")
        #expect(
            clear.output.hasPrefix(
                "Forget 6 results of copy.yaml (the next run runs everything)? [y/N] cleared; store .flowrun: 0 "
                    + "results"), "\(clear.output)")
    }
}
