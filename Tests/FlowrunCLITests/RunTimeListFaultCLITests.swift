import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Faults of lists made at run time (`forEach: { from: TASK }`), through the binary: duplicate keys, two items
/// writing one file, a producer that fails after printing items, and Ctrl-C while the producer runs.
@Suite struct RunTimeListFaultCLITests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    /// What a run shows: its exit status, each node of the report with its status and cause, and the errors under
    /// its summary (the summary's durations differ from run to run; the report says the same).
    private func outcome(_ arguments: [String] = []) async throws -> String {
        let result = try await Child.runFlowrun(
            ["flow.yaml", "--no-progress", "--report", "report.json"] + arguments, in: scratch.url)
        let report = try ReportView(scratch.path("report.json"))
        let nodes = report.nodes.map { node in
            let cause = (node["cause"] as? String).map { ": \($0)" } ?? ""
            return "\(node["id"] ?? "?") \(node["status"] ?? "?")\(cause)\n"
        }
        let errors = result.stdout.split(separator: "\n").filter { $0.contains("error:") }.map { "\($0)\n" }
        return "exit \(result.status)\n" + nodes.joined() + errors.joined()
    }

    @Test func aDuplicateKeyFailsTheLaterItemsNodesNamingBothAndTheFirstRuns() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              list: { type: command, argv: [printf, "a\\nb\\na\\n"] }
              each: { type: command, forEach: { from: list }, argv: [echo, "${item}"] }
              shout: { type: command, dependsOn: each, stdin: true, argv: [tr, a-z, A-Z] }
              all: { type: command, gather: true, runIf: always, dependsOn: shout, stdin: true, argv: [sh, -c, "cat > all.txt"] }
            """)
        let cause =
            "item 2 of the list of 'each' from 'list' has the key 'a', as item 0 has ('each[a]' runs): an item is "
            + "known by its key; give each item a key of its own"
        #expect(
            try await outcome() == """
                exit 1
                list succeeded
                each[a] succeeded
                each[b] succeeded
                each[a#2] failed: \(cause)
                shout[a] succeeded
                shout[b] succeeded
                shout[a#2] skipped: upstream each[a#2] failed: \(cause)
                all succeeded
                flow.yaml:4:43: error: each[a#2] failed: \(cause) — 1 dependent skipped

                """)
        #expect(try String(contentsOfFile: scratch.path("all.txt"), encoding: .utf8) == "A\nB\n")
    }

    @Test func twoItemsWritingOneFileFailTheLaterNamingBothAndARerunKeepsTheEarliersFile() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              list: { type: command, argv: [printf, "b\\na\\n"] }
              each: { type: command, cache: true, forEach: { from: list }, argv: [echo, "${item}"] }
              save: { type: write, dependsOn: each, path: "out/one.txt" }
            """)
        let cause = "refusing to write 'out/one.txt', which 'save[b]' writes in this run: give each item its own path"
        #expect(
            try await outcome() == """
                exit 1
                list succeeded
                each[b] succeeded
                each[a] succeeded
                save[b] succeeded
                save[a] failed: \(cause)
                flow.yaml:5:3: error: save[a] failed: \(cause)

                """)
        #expect(try String(contentsOfFile: scratch.path("out/one.txt"), encoding: .utf8) == "b\n")
        // Rerun: the earlier item's write is cached, and the later one still may not replace its file.
        let rerun = try await outcome()
        #expect(rerun.contains("save[b] cached\nsave[a] failed: \(cause)\n"), "\(rerun)")
        #expect(try String(contentsOfFile: scratch.path("out/one.txt"), encoding: .utf8) == "b\n")
    }

    @Test func anItemWritingTheFileOfATaskOverNoListFails() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              list: { type: command, argv: [printf, "a\\n"] }
              index: { type: write, dependsOn: list, path: out/one.txt }
              each: { type: command, forEach: { from: list }, argv: [echo, "${item}"] }
              save: { type: write, dependsOn: each, path: "out/${item.stem}/../one.txt" }
            """)
        let cause =
            "refusing to write 'out/a/../one.txt', which 'index' writes in this run: give each item its own path"
        #expect(
            try await outcome() == """
                exit 1
                list succeeded
                each[a] succeeded
                index succeeded
                save[a] failed: \(cause)
                flow.yaml:6:3: error: save[a] failed: \(cause)

                """)
        #expect(try String(contentsOfFile: scratch.path("out/one.txt"), encoding: .utf8) == "a\n")
    }

    /// Lines stream: the items that ran before the producer failed keep their results (a rerun finds them in the
    /// store), the gather over the list runs only with `runIf: always`, and the producer is not trusted: a rerun
    /// runs it again. It fails only once both items have written their files.
    @Test(.timeLimit(.minutes(10))) func aProducerThatFailsAfterItsItemsRanKeepsThemAndARerunRunsItAgain()
        async throws
    {
        let cause = "'sh' exited with status 3 (nothing on standard error)"
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, cache: true, argv: [sh, -c, "echo a; echo b; \#(StreamingProducer.waitFor("a.done", "b.done")); test -e ready || exit 3"] }
              each: { type: command, cache: true, forEach: { from: list }, argv: [sh, -c, 'echo "$0" > "$0.part" && mv "$0.part" "$0.done"', "${item}"] }
              all: { type: command, gather: true, runIf: always, dependsOn: each, argv: [echo, done] }
              index: { type: command, gather: true, dependsOn: each, argv: [echo, done] }
            """#)
        #expect(
            try await outcome() == """
                exit 1
                list failed: \(cause)
                each[a] succeeded
                each[b] succeeded
                all succeeded
                index skipped: the list of 'each' from 'list' is not whole: 'list' failed: \(cause)
                flow.yaml:3:3: error: list failed: \(cause)

                """)
        try scratch.write("ready", "")
        #expect(
            try await outcome() == """
                exit 0
                list succeeded
                each[a] cached
                each[b] cached
                all succeeded
                index succeeded

                """)
    }

    /// The producer sleeps five minutes: a test thread that a loaded machine runs a minute late still signals it
    /// while it runs (with a minute's sleep it had ended on its own, and the run succeeded).
    @Test(.timeLimit(.minutes(10))) func ctrlCWhileTheProducerRunsStopsItAndEndsWithTheSummary() async throws {
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, argv: [sh, -c, "echo a; \#(StreamingProducer.waitFor("a.done")); sleep 5; echo $$ > producer.pid; exec sleep 300"] }
              each: { type: command, forEach: { from: list }, argv: [touch, "${item}.done"] }
            """#)
        let child = try Child.flowrun(["flow.yaml", "--no-progress", "--report", "report.json"], in: scratch.url)
        let producer = try await ProgramPID(file: scratch.path("producer.pid"))
        child.signal(SIGINT)
        let result = try #require(await child.wait(timeout: .seconds(300)), "flowrun did not end after Ctrl-C")
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("2 nodes: 1 succeeded, 1 cancelled"), "\(result.stdout)")
        let report = try ReportView(scratch.path("report.json"))
        #expect(report.interrupted == true)
        // The item ran while its producer ran (which waited for its file, then five seconds for its node to end, before
        // Ctrl-C): it keeps its result.
        #expect(
            report.nodes.map { "\($0["id"] ?? "?") \($0["status"] ?? "?")" } == ["list cancelled", "each[a] succeeded"])
        #expect(await producer.ended(), "the producer's program is still running")
    }
}
