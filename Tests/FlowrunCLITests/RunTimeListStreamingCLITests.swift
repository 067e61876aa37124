import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A shell snippet for a producer that waits, up to five minutes, for files its items' consumers create: the
/// run gets past it only if those consumers started while the producer still ran. It fails the producer with
/// status 9 when the files never come.
enum StreamingProducer {
    static func waitFor(_ files: String...) -> String {
        let present = files.map { "test -e \($0)" }.joined(separator: " && ")
        return "i=0; until \(present); do i=$((i+1)); test $i -lt 3000 || exit 9; sleep 0.1; done"
    }
}

/// Lists made at run time stream (`forEach: { from: TASK }` over lines): each item starts as soon as its line is
/// printed, while the producer still runs, and the run is the same as if the items had waited for the whole list.
@Suite struct RunTimeListStreamingCLITests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    private func run() async throws -> (Flowrun.Result, ReportView) {
        let result = try await Child.runFlowrun(
            ["flow.yaml", "--no-progress", "--report", "report.json"], in: scratch.url)
        return (result, try ReportView(scratch.path("report.json")))
    }

    private func statuses(_ report: ReportView) -> [String] {
        report.nodes.map { "\($0["id"] ?? "?") \($0["status"] ?? "?")" }
    }

    @Test(.timeLimit(.minutes(10))) func anItemStartsWhileItsProducerStillRuns() async throws {
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, argv: [sh, -c, "echo a; \#(StreamingProducer.waitFor("a.started")); echo b"] }
              each: { type: command, forEach: { from: list }, argv: [touch, "${item}.started"] }
              all: { type: command, gather: true, dependsOn: each, argv: [sh, -c, "ls *.started > all.txt"] }
            """#)
        let (result, report) = try await run()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(statuses(report) == ["list succeeded", "each[a] succeeded", "each[b] succeeded", "all succeeded"])
        #expect(try String(contentsOfFile: scratch.path("all.txt"), encoding: .utf8) == "a.started\nb.started\n")
    }

    /// The items that started while the producer ran are found in the store by key like any item: a rerun after
    /// one new line runs that line's chain alone. The producer ends once the item `wait.txt` names has started.
    @Test(.timeLimit(.minutes(10))) func aRerunAfterOneNewLineRunsThatLinesChainAlone() async throws {
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, argv: [sh, -c, "cat names.txt; w=$(cat wait.txt); \#(StreamingProducer.waitFor("$w.seen"))"] }
              each: { type: command, cache: true, forEach: { from: list }, argv: [sh, -c, 'touch "$0.seen"; echo "$0"', "${item}"] }
              shout: { type: command, cache: true, dependsOn: each, stdin: true, argv: [tr, a-z, A-Z] }
              all: { type: command, gather: true, dependsOn: shout, stdin: true, argv: [sh, -c, "cat > all.txt"] }
            """#)
        try scratch.write("names.txt", "a\nb\n")
        try scratch.write("wait.txt", "a")
        let (cold, _) = try await run()
        #expect(cold.status == 0, "\(cold.stdout)\(cold.stderr)")
        try scratch.write("names.txt", "a\nc\nb\n")
        try scratch.write("wait.txt", "c")
        let (result, report) = try await run()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            statuses(report) == [
                "list succeeded", "each[a] cached", "each[c] succeeded", "each[b] cached", "shout[a] cached",
                "shout[c] succeeded", "shout[b] cached", "all succeeded",
            ])
        #expect(try String(contentsOfFile: scratch.path("all.txt"), encoding: .utf8) == "A\nC\nB\n")
    }

    /// Faults are decided in list order whatever batch an item arrives in: the second `b`, and `a`'s write of the
    /// file `b` wrote, fail naming the earlier item, though `b` ran before `a` was printed.
    @Test(.timeLimit(.minutes(10))) func aLaterBatchsDuplicateAndCollidingWriteFailAsInTheWholeList() async throws {
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, argv: [sh, -c, "echo b; \#(StreamingProducer.waitFor("out/one.txt")); echo a; echo b"] }
              each: { type: command, forEach: { from: list }, argv: [echo, "${item}"] }
              save: { type: write, dependsOn: each, path: out/one.txt }
            """#)
        let (result, report) = try await run()
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let nodes = report.nodes.map { node in
            "\(node["id"] ?? "?") \(node["status"] ?? "?")" + ((node["cause"] as? String).map { ": \($0)" } ?? "")
        }
        let duplicate =
            "item 2 of the list of 'each' from 'list' has the key 'b', as item 0 has ('each[b]' runs): an item is "
            + "known by its key; give each item a key of its own"
        #expect(
            nodes == [
                "list succeeded", "each[b] succeeded", "each[a] succeeded", "each[b#2] failed: \(duplicate)",
                "save[b] succeeded",
                "save[a] failed: refusing to write 'out/one.txt', which 'save[b]' writes in this run: give each item "
                    + "its own path",
                "save[b#2] skipped: upstream each[b#2] failed: \(duplicate)",
            ])
        #expect(try String(contentsOfFile: scratch.path("out/one.txt"), encoding: .utf8) == "b\n")
    }

    /// Ctrl-C while an item runs beside its producer cancels both: each program is stopped, and the run ends with
    /// the summary.
    @Test(.timeLimit(.minutes(10))) func ctrlCWhileAnItemRunsBesideItsProducerStopsBoth() async throws {
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, argv: [sh, -c, "echo a; \#(StreamingProducer.waitFor("a.pid")); echo $$ > producer.pid; exec sleep 300"] }
              each: { type: command, forEach: { from: list }, argv: [sh, -c, 'echo $$ > "$0.pid"; exec sleep 300', "${item}"] }
            """#)
        let child = try Child.flowrun(["flow.yaml", "--no-progress", "--report", "report.json"], in: scratch.url)
        let producer = try await ProgramPID(file: scratch.path("producer.pid"))
        let item = try await ProgramPID(file: scratch.path("a.pid"))
        child.signal(SIGINT)
        let result = try #require(await child.wait(timeout: .seconds(300)), "flowrun did not end after Ctrl-C")
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("2 nodes: 2 cancelled"), "\(result.stdout)")
        let report = try ReportView(scratch.path("report.json"))
        #expect(report.interrupted == true)
        #expect(statuses(report) == ["list cancelled", "each[a] cancelled"])
        #expect(await producer.ended(), "the producer's program is still running")
        #expect(await item.ended(), "the item's program is still running")
    }

    /// Items whose nodes have one key (their task does not read the item) all run in a cold run, as with the whole
    /// list: an item that arrives later is not found by the key an earlier item's batch recorded in this run. (The
    /// last line, without a newline, is known only with the whole list.)
    @Test(.timeLimit(.minutes(10))) func aLaterItemIsNotFoundByTheKeyAnEarlierItemRecordedInTheSameRun() async throws {
        try FileManager.default.createDirectory(atPath: scratch.path("done"), withIntermediateDirectories: true)
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, argv: [sh, -c, "echo 1; \#(StreamingProducer.waitFor("done/0")); printf 2"] }
              each: { type: command, cache: true, forEach: { from: list }, argv: [sh, -c, 'touch "done/$(ls done | wc -l)"'] }
            """#)
        let (result, report) = try await run()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(statuses(report) == ["list succeeded", "each[1] succeeded", "each[2] succeeded"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("done")).sorted() == ["0", "1"])
    }

    /// The events of the nodes a batch or the first phase ran are logged once, by the run that ran them: the
    /// second phase takes their outcomes without telling of them again (it logged them `cached` after
    /// `succeeded`, and the producer a second time).
    @Test(.timeLimit(.minutes(10))) func eachNodesEventsAreLoggedOnce() async throws {
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, argv: [sh, -c, "echo a; \#(StreamingProducer.waitFor("a.started")); echo b"] }
              each: { type: command, forEach: { from: list }, argv: [touch, "${item}.started"] }
              mark: { type: command, dependsOn: each, argv: [touch, "${item}.marked"] }
              all: { type: command, gather: true, dependsOn: each, argv: [true] }
            """#)
        let result = try await Child.runFlowrun(["flow.yaml", "--no-progress", "--verbose"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        var events: [String: [String]] = [:]
        for line in result.stderr.split(separator: "\n") {
            guard let logged = line.split(separator: "[FlowrunCLI] ", maxSplits: 1).dropFirst().first else { continue }
            let words = logged.split(separator: " ")
            events[String(words[0]), default: []].append(String(words[1]))
        }
        let ran = ["queued", "running", "succeeded"]
        #expect(
            events == [
                "list": ran, "each[a]": ran, "each[b]": ran, "mark[a]": ran, "mark[b]": ran, "all": ran,
            ], "\(result.stderr)")
    }
}
