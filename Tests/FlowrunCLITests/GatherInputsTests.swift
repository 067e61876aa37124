import Foundation
import Testing

/// A gather `command` reads every item: `stdin: true` gets all their data in item order, `${inputs}` one
/// argument per file they wrote or read, `${input}` the one file of a single dependency.
@Suite struct GatherInputsTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    private func read(_ name: String) throws -> String {
        try String(contentsOfFile: scratch.path(name), encoding: .utf8)
    }

    @Test func stdinOfAGatherIsEveryItemsDataInItemOrder() throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              rows: { type: command, forEach: [a, b, c], argv: [printf, "row ${item}\\n"] }
              all: { type: command, gather: true, dependsOn: rows, stdin: true, argv: [cat] }
              save: { type: write, path: out/rows.txt, dependsOn: all }
            """)
        let result = try Flowrun.run(["flow.yaml"], in: scratch.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try read("out/rows.txt") == "row a\nrow b\nrow c\n")
    }

    @Test func stdinOfAGatherLeavesOutItemsThatFailedAndKeepsTheRestInOrder() throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              rows: { type: command, forEach: [a, fail, c], argv: [sh, -c, "test ${item} != fail && echo ${item}"] }
              all: { type: command, gather: true, runIf: always, dependsOn: rows, stdin: true, argv: [cat] }
              save: { type: write, path: out/rows.txt, dependsOn: all }
            """)
        let result = try Flowrun.run(["flow.yaml"], in: scratch.url)
        #expect(result.status == 1)
        #expect(try read("out/rows.txt") == "a\nc\n")
    }

    /// A gather that ran without a failed item made a partial result: the store must not serve it once the item
    /// succeeds, even though nothing in the gather's key changed (the failure was transient).
    @Test func aGatherThatRanWithoutAFailedItemRunsAgainOnceItSucceeds() throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              rows:
                type: command
                forEach: [a, b]
                argv: [sh, -c, 'test "$1" != b || test -e ready && echo "$1"', rows, "${item}"]
              all: { type: command, gather: true, runIf: always, dependsOn: rows, stdin: true, argv: [cat], cache: true }
              save: { type: write, path: out/rows.txt, dependsOn: all }
            """)
        let first = try Flowrun.run(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(first.status == 1)
        #expect(try read("out/rows.txt") == "a\n")
        try scratch.write("ready", "")
        let second = try Flowrun.run(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(second.status == 0, "\(second.stdout)")
        #expect(try read("out/rows.txt") == "a\nb\n")
        #expect(second.stdout.contains("4 nodes: 4 succeeded in "), "\(second.stdout)")
        // The rows run every time, so the gather is decided by the digests of what they printed; `save` reads its
        // output, which only running it gives in that case (its stored value is not checked before the run), and
        // what it printed is the same, so `save` stays cached.
        let third = try Flowrun.run(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(third.stdout.contains("4 nodes: 3 succeeded, 1 cached in "), "\(third.stdout)")
        #expect(try read("out/rows.txt") == "a\nb\n")
    }

    @Test func inputsIsOneArgumentPerFileWrittenOrRead() throws {
        try scratch.write("in/a b.txt", "A")
        try scratch.write("in/c.txt", "CC")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              copy: { type: write, path: "out/${item.name}", dependsOn: read }
              written: { type: command, gather: true, dependsOn: copy, argv: [wc, -c, "${inputs}"] }
              readFiles: { type: command, gather: true, dependsOn: read, argv: [wc, -c, "${inputs}"] }
              one: { type: command, dependsOn: read, argv: [printf, "%s\\n", "file=${input}"] }
              keepWritten: { type: write, path: out/written.txt, dependsOn: written }
              keepRead: { type: write, path: out/read.txt, dependsOn: readFiles }
              keepOne: { type: write, path: "out/one-${item.stem}.txt", dependsOn: one }
            """)
        let result = try Flowrun.run(["flow.yaml"], in: scratch.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try read("out/written.txt") == "1 out/a b.txt\n2 out/c.txt\n3 total\n")
        #expect(try read("out/read.txt") == "1 in/a b.txt\n2 in/c.txt\n3 total\n")
        #expect(try read("out/one-a b.txt") == "file=in/a b.txt\n")
        #expect(try read("out/one-c.txt") == "file=in/c.txt\n")
    }

    @Test func inputWithSeveralFilesFailsTheNodeSayingWhy() throws {
        try scratch.write("a.txt", "A")
        try scratch.write("b.txt", "B")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: [a.txt, b.txt], url: "${item}" }
              both: { type: command, gather: true, dependsOn: read, argv: [echo, "${input}"] }
            """)
        let result = try Flowrun.run(["flow.yaml"], in: scratch.url)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "'${input}' needs exactly one input file, and the dependencies wrote or read 2; use ${inputs} for one argument per file"
            ), "\(result.stdout)")
    }

    @Test(arguments: [
        (
            #"run: { type: command, argv: [echo, "x${inputs}"] }"#,
            "flow.yaml:3:31: error: '${inputs}' must be an argv entry of its own, found 'x${inputs}'"
        ),
        (
            #"run: { type: fetch, url: "${inputs}" }"#,
            "flow.yaml:3:29: error: '${inputs}' is only known to a 'command' task, in its 'argv'"
        ),
        (
            #"run: { type: command, argv: [echo], env: { A: "${input}" } }"#,
            "flow.yaml:3:44: error: '${inputs}' and '${input}' are expanded only in 'argv'"
        ),
    ])
    func misplacedInputReferencesAreValidationErrors(_ task: String, _ message: String) throws {
        try scratch.write("flow.yaml", "version: 1\ntasks:\n  \(task)\n")
        let result = try Flowrun.run(["flow.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }
}
