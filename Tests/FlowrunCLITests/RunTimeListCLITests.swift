import Foundation
import Testing

/// Lists made at run time (`forEach: { from: TASK }`) through the binary: lines and JSON, what a gather receives,
/// a producer whose output is not a list or that fails, reruns that find items by key, the dry run and `explain`.
@Suite struct RunTimeListCLITests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    /// A workflow whose `list` task runs `argv` and whose items are echoed, then gathered into `all.txt`.
    private func writeFlow(producer argv: String, key: String? = nil, item: String = "${item}") throws {
        let from = key.map { "{ from: list, key: \($0) }" } ?? "{ from: list }"
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              list: { type: command, argv: \(argv) }
              each: { type: command, cache: true, forEach: \(from), argv: [echo, "\(item)"] }
              all: { type: command, gather: true, dependsOn: each, stdin: true, argv: [sh, -c, "cat > all.txt"] }
              always: { type: command, gather: true, runIf: always, dependsOn: each, argv: [echo, done] }
            """)
    }

    private func run(_ arguments: [String] = []) async throws -> (Flowrun.Result, ReportView) {
        let result = try await Child.runFlowrun(
            ["flow.yaml", "--no-progress", "--report", "report.json"] + arguments, in: scratch.url)
        return (result, try ReportView(scratch.path("report.json")))
    }

    private func statuses(_ report: ReportView) -> [String] {
        report.nodes.map { "\($0["id"] ?? "?") \($0["status"] ?? "?")" }
    }

    @Test func linesWithoutATrailingNewlineFanOutAndTheGatherReceivesEveryItem() async throws {
        try writeFlow(producer: #"[printf, "b.jpg\n  a photo.jpg\n\nc.jpg"]"#, item: "${item.stem}")
        let (result, report) = try await run()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            statuses(report) == [
                "list succeeded", "each[b.jpg] succeeded", "each[a photo.jpg] succeeded", "each[c.jpg] succeeded",
                "all succeeded", "always succeeded",
            ])
        #expect(try String(contentsOfFile: scratch.path("all.txt"), encoding: .utf8) == "b\na photo\nc\n")
    }

    @Test func aJSONArrayOfMapsIsKeyedByItsKeyFieldAndFieldsAreItemParts() async throws {
        try writeFlow(
            producer: #"[echo, '[{"name": "x", "size": 1}, {"name": "y", "size": 2.5, "tag": true}]']"#, key: "name",
            item: "${item.name}=${item.size}")
        let (result, report) = try await run()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            statuses(report) == [
                "list succeeded", "each[x] succeeded", "each[y] succeeded", "all succeeded", "always succeeded",
            ])
        #expect(try String(contentsOfFile: scratch.path("all.txt"), encoding: .utf8) == "x=1\ny=2.5\n")
    }

    @Test func aJSONArrayOfStringsIsOneItemEach() async throws {
        try writeFlow(producer: #"[echo, '["one", "two"]']"#)
        let (result, report) = try await run()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try String(contentsOfFile: scratch.path("all.txt"), encoding: .utf8) == "one\ntwo\n")
        #expect(report.status("each[two]") == "succeeded")
    }

    @Test func anEmptyListSkipsTheGatherForNoItemsAndAGatherThatRunsAlwaysRuns() async throws {
        try writeFlow(producer: "[printf, '']")
        let (result, report) = try await run()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(statuses(report) == ["list succeeded", "all skipped", "always succeeded"])
        #expect(report.cause("all") == "no items: the list of 'each' from 'list' is empty")
    }

    @Test(arguments: [
        (
            #"[printf, '[1, 2']"#,
            "its output is not the list of 'each': its output is not valid JSON: the input ends inside a list at byte 5"
        ),
        (#"[echo, '{"a": 1}']"#, "its output is not the list of 'each': its output is JSON but not a list of items"),
        (
            #"[echo, '[{"name": "x"}, {"size": 2}]']"#,
            "its output is not the list of 'each': item 1 of the list has no 'name' to be known by: {size: 2}"
        ),
    ])
    func anOutputThatIsNotAListFailsTheProducerAndRunsNoItem(producer: String, cause: String) async throws {
        try writeFlow(producer: producer, key: producer.contains("name") ? "name" : nil)
        let (result, report) = try await run()
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(statuses(report) == ["list failed", "all skipped", "always succeeded"])
        #expect(report.cause("list") == cause)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("all.txt")))
    }

    /// Lines stream: the items that started before the producer failed keep their results, and the gather over the
    /// list does not run (but the one with `runIf: always`). The producer fails only once both items have ended.
    @Test func aProducerThatFailsAfterItsLinesStartedKeepsThoseItemsAndSkipsTheGather() async throws {
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, argv: [sh, -c, "echo a; echo b; \#(StreamingProducer.waitFor("a.done", "b.done")); exit 3"] }
              each: { type: command, cache: true, forEach: { from: list }, argv: [sh, -c, 'touch "$0.done"', "${item}"] }
              all: { type: command, gather: true, dependsOn: each, stdin: true, argv: [sh, -c, "cat > all.txt"] }
              always: { type: command, gather: true, runIf: always, dependsOn: each, argv: [echo, done] }
            """#)
        let (result, report) = try await run()
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            statuses(report) == [
                "list failed", "each[a] succeeded", "each[b] succeeded", "all skipped", "always succeeded",
            ])
        #expect(report.cause("list") == "'sh' exited with status 3 (nothing on standard error)")
        #expect(
            report.cause("all")
                == "the list of 'each' from 'list' is not whole: 'list' failed: 'sh' exited with status 3 (nothing on standard error)"
        )
    }

    /// A JSON list is read once its producer has ended: a producer that fails after printing one runs none of it.
    @Test func aProducerThatFailsAfterPrintingAJSONListRunsNoneOfIt() async throws {
        try writeFlow(producer: #"[sh, -c, "echo '[\"a\", \"b\"]'; sleep 1; exit 3"]"#)
        let (result, report) = try await run()
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(statuses(report) == ["list failed", "all skipped", "always succeeded"])
        #expect(report.cause("list") == "'sh' exited with status 3 (nothing on standard error)")
    }

    @Test func aRerunAfterOneNewItemRunsThatItemsChainAlone() async throws {
        try scratch.write("names.txt", "a\nb\n")
        try writeFlow(producer: "[cat, names.txt]")
        let (cold, _) = try await run()
        #expect(cold.status == 0, "\(cold.stdout)\(cold.stderr)")
        try scratch.write("names.txt", "c\na\nb\n")
        let explained = try await Child.runFlowrun(["explain", "flow.yaml", "each[a]"], in: scratch.url)
        #expect(explained.stdout.hasPrefix("each[a] (key "), "\(explained.stdout)\(explained.stderr)")
        #expect(explained.stdout.contains("cached: same key as the result of the run of "), "\(explained.stdout)")
        let (grown, report) = try await run()
        #expect(grown.status == 0, "\(grown.stdout)\(grown.stderr)")
        #expect(
            statuses(report) == [
                "list succeeded", "each[c] succeeded", "each[a] cached", "each[b] cached", "all succeeded",
                "always succeeded",
            ])
        #expect(try String(contentsOfFile: scratch.path("all.txt"), encoding: .utf8) == "c\na\nb\n")
    }

    @Test func aProducerUpToDateReplaysItsListFromTheStore() async throws {
        try scratch.write("items.json", #"["x", "y"]"#)
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              get: { type: fetch, url: items.json }
              each: { type: command, cache: true, forEach: { from: get }, argv: [echo, "${item}"] }
            """)
        let (cold, _) = try await run()
        #expect(cold.status == 0, "\(cold.stdout)\(cold.stderr)")
        let (again, replayed) = try await run()
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(statuses(replayed) == ["get cached", "each[x] cached", "each[y] cached"])
        try scratch.write("items.json", #"["x", "z"]"#)
        let (changed, report) = try await run()
        #expect(changed.status == 0, "\(changed.stdout)\(changed.stderr)")
        #expect(statuses(report) == ["get succeeded", "each[x] cached", "each[z] succeeded"])
    }

    @Test func theDryRunSaysTheListIsKnownAfterItsProducerRunsOrShowsItFromTheStore() async throws {
        try writeFlow(producer: #"[printf, "a\nb\n"]"#)
        let before = try await Child.runFlowrun(["validate", "flow.yaml", "--plan", "nodes"], in: scratch.url)
        #expect(before.status == 0, "\(before.stderr)")
        #expect(
            before.stdout == """
                flow: 4 tasks → 3 nodes in 2 waves
                queues: default (cores)

                wave 1
                  list    command  default

                wave 2
                  all     command  default  ← list
                  always  command  default  ← list

                the list of 'each' is known only after 'list' runs

                store .flowrun: nothing recorded yet; every node will run

                valid: nothing was fetched, decoded or written

                """)
        _ = try await run()
        let after = try await Child.runFlowrun(["flow.yaml", "--dry-run", "--plan", "nodes"], in: scratch.url)
        #expect(
            after.stdout == """
                flow: 4 tasks → 5 nodes in 2 waves
                queues: default (cores)

                wave 1
                  list     command  default
                  each[a]  command  default
                  each[b]  command  default

                wave 2
                  all      command  default  ← each[a], each[b]
                  always   command  default  ← each[a], each[b]

                the list of 'each': 2 items, as 'list' printed it last

                store .flowrun: 5 results recorded; 3 nodes will run, 2 cached
                  list    1 run, 0 cached
                    list: never reused without `cache: true` (side effects)
                  each    0 run, 2 cached
                  all     1 run, 0 cached
                    all: never reused without `cache: true` (side effects)
                  always  1 run, 0 cached
                    always: never reused without `cache: true` (side effects)

                valid: nothing was fetched, decoded or written

                """, "\(after.stdout)")
    }

    @Test func aListFromAnUnknownTaskOrATaskThatWaitsForTheItemsIsAnErrorBeforeTheRun() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              list: { type: command, argv: [echo, a] }
              wait: { type: noop }
              each: { type: command, forEach: { from: lisst }, argv: [echo, "${item}"] }
              none: { type: command, forEach: { from: wait }, argv: [echo, "${item}"] }
              loop: { type: command, forEach: { from: after }, argv: [echo, "${item}"] }
              after: { type: command, dependsOn: loop, argv: [echo, hi] }
            """)
        let result = try await Child.runFlowrun(["flow.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("flow.yaml:") || $0.contains("hint:") }
        #expect(
            lines == [
                "flow.yaml:5:43: error: the list of task 'each' comes from unknown task 'lisst' (did you mean 'list'?)",
                "    hint: 'from' names the task whose output (a JSON array, or lines) is the list",
                "flow.yaml:6:43: error: task 'wait' (type 'noop') provides no data to read a list from",
                "    hint: a list comes from a task whose output is bytes: a 'command' printing it, or a 'fetch'",
                "flow.yaml:7:43: error: task 'after' runs after 'loop', so its list cannot be known before 'loop' runs",
                "    hint: the fan-out waits for its list: 'after' must not depend on 'loop' or its items",
            ], "\(result.stderr)")
    }

    @Test func aParameterThatDoesNotDependOnTheItemIsCheckedBeforeTheProducerRuns() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              list: { type: command, argv: [sh, -c, "touch ran; echo a"] }
              each: { type: sleep, forEach: { from: list }, duration: soon }
            """)
        let result = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "flow.yaml:4:59: error: parameter 'duration' of task 'each' (sleep) must be a duration such as 250ms, 20s or 2m, at most 8760h, found a string ('soon')\n"
            ), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("ran")))
    }
}

/// `--target` among a list made at run time: an item or a fan-out task is found once the list is known.
@Suite struct RunTimeListTargetCLITests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              list: { type: command, argv: [printf, "a\\nb\\n"] }
              each: { type: command, forEach: { from: list }, argv: [echo, "${item}"] }
              all: { type: command, gather: true, dependsOn: each, stdin: true, argv: [cat] }
            """)
    }

    @Test(arguments: [
        ("each[b]", ["list succeeded", "each[b] succeeded"]),
        ("each", ["list succeeded", "each[a] succeeded", "each[b] succeeded"]),
        ("all", ["list succeeded", "each[a] succeeded", "each[b] succeeded", "all succeeded"]),
    ])
    func aTargetAmongTheItemsRunsWhatItNeeds(target: String, expected: [String]) async throws {
        let result = try await Child.runFlowrun(
            ["flow.yaml", "--no-progress", "--target", target, "--report", "report.json"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try ReportView(scratch.path("report.json"))
        #expect(report.nodes.map { "\($0["id"] ?? "?") \($0["status"] ?? "?")" } == expected)
    }

    @Test func anItemTheListDoesNotHaveIsAnError() async throws {
        let result = try await Child.runFlowrun(["flow.yaml", "--no-progress", "--target", "each[c]"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "error: with the lists made at run time known, unknown target 'each[c]'; did you mean 'each[a]'?; task 'each' has 2 items, named by their keys: each[a] to each[b]; nothing more was run\n"
        )
    }
}
