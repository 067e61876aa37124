import Foundation
import Testing

@Suite struct CommandLineTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    static let diamond = """
        version: 1
        name: diamond
        queues:
          io: { maxConcurrent: 2 }
        tasks:
          start: { type: noop }
          left: { type: sleep, duration: 10ms, dependsOn: start, queue: io }
          right: { type: sleep, duration: 10ms, dependsOn: start, queue: io }
          join: { type: noop, dependsOn: [left, right] }
        """

    @Test func validatePrintsThePlanInWavesAndExitsZero() throws {
        try scratch.write("diamond.yaml", Self.diamond)
        let result = try Flowrun.run(["validate", "diamond.yaml", "--plan", "nodes"], in: scratch.url)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.hasPrefix("diamond: 4 tasks → 4 nodes in 3 waves\nqueues: default (cores), io (2)\n"))
        #expect(result.stdout.contains("wave 3\n  join   noop   default  ← left, right\n"))
        let dryRun = try Flowrun.run(["diamond.yaml", "--dry-run", "--plan", "nodes"], in: scratch.url)
        #expect(dryRun.stdout == result.stdout)
    }

    @Test func validatePrintsALinePerTaskByDefault() throws {
        try scratch.write("diamond.yaml", Self.diamond)
        let result = try Flowrun.run(["validate", "diamond.yaml", "--no-cache"], in: scratch.url)
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                diamond: 4 tasks → 4 nodes in 3 waves
                queues: default (cores), io (2)

                  start  1 node  noop   default
                  left   1 node  sleep  io       ← start
                  right  1 node  sleep  io       ← start
                  join   1 node  noop   default  ← left, right
                (--plan nodes lists every node)

                valid: nothing was fetched, decoded or written

                """, "\(result.stdout)")
    }

    @Test func anInvalidWorkflowIsReportedLikeACompilerAndNothingRuns() throws {
        try scratch.write(
            "bad.yaml",
            """
            version: 1
            tasks:
              decode: { type: noop }
              tone: { type: noop, dependsOn: [decod] }
              save: { type: sleeep }
            """)
        let result = try Flowrun.run(["bad.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines.first == "bad.yaml:4:35: error: task 'tone' depends on unknown task 'decod' (did you mean 'decode'?)")
        #expect(lines.contains("bad.yaml:5:17: error: unknown task type 'sleeep' (did you mean 'sleep'?)"))
        #expect(lines.last == "2 errors in bad.yaml; nothing was run")
    }

    @Test(arguments: [
        ["--max-concurrent", "0", "x.yaml"], ["x.yaml", "--param", "novalue"], ["x.yaml", "--no-such-flag"],
        ["x.yaml", "--quiet", "--verbose"], ["graph", "x.yaml", "--format", "png"],
    ])
    func badArgumentsExitWithTwo(arguments: [String]) throws {
        try scratch.write("x.yaml", Self.diamond)
        let result = try Flowrun.run(arguments, in: scratch.url)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("Error:") || result.stderr.contains("error:"))
    }

    /// argument-parser quotes the command line in its errors; an escape sequence there reaches the terminal made
    /// visible, as in every other message.
    @Test func argumentErrorsShowControlCharactersEscaped() throws {
        try scratch.write("x.yaml", Self.diamond)
        let unknown = try Flowrun.run(["schema", "--\u{1B}[31mx"], in: scratch.url)
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr == #"""
                Error: Unknown option '--\u{1b}[31mx'
                Usage: flowrun schema
                  See 'flowrun schema --help' for more information.

                """#)
        let badValue = try Flowrun.run(["graph", "x.yaml", "--format", "\u{1B}]0;owned\u{7}"], in: scratch.url)
        #expect(badValue.status == 2)
        #expect(
            badValue.stderr == #"""
                Error: The value '\u{1b}]0;owned\u{7}' is invalid for '--format <format>'. Please provide one of 'dot', 'mermaid' or 'json'.
                Help:  --format <format>  Output format: dot, mermaid or json.
                Usage: flowrun graph <workflow> [--param <key=value> ...] [--env-file <FILE> ...] [--target <TASK> ...] [--strict] [--annotations <format>] [--format <format>] [--tasks]
                  See 'flowrun graph --help' for more information.

                """#)
    }

    @Test func aMissingFileIsAnInvalidWorkflow() throws {
        let result = try Flowrun.run(["validate", "nowhere.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("error: cannot read workflow 'nowhere.yaml': no such file\n"))
    }

    @Test func unknownParamOverrideIsAnError() throws {
        try scratch.write(
            "p.yaml",
            """
            version: 1
            params: { outDir: out }
            tasks:
              a: { type: noop }
            """)
        let result = try Flowrun.run(["validate", "p.yaml", "--param", "outdir=x"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix("error: unknown parameter 'outdir' in --param outdir=x (did you mean 'outDir'?)\n"))
    }

    @Test func aBadParamOverrideIsReportedAtItsUseWithWhereItCameFrom() throws {
        try scratch.write(
            "tone.yaml",
            """
            version: 1
            params: { intensity: 0.8 }
            tasks:
              read: { type: fetch, url: photo.jpg }
              decode: { type: decode, dependsOn: read }
              tone: { type: sepia, intensity: "${params.intensity}", dependsOn: decode }
            """)
        let result = try Flowrun.run(["validate", "tone.yaml", "--param", "intensity=2"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                tone.yaml:6:35: error: parameter 'intensity' of task 'tone' (sepia) must be between 0 and 1, found 2
                 6 |   tone: { type: sepia, intensity: "${params.intensity}", dependsOn: decode }
                   |                                   ^
                    hint: the value comes from params.intensity: change it under 'params:' or with --param intensity=…
                1 error in tone.yaml; nothing was run

                """)
    }

    @Test func aSuccessfulRunPrintsTheSummaryAndWritesReportAndTrace() throws {
        try scratch.write("diamond.yaml", Self.diamond)
        let result = try Flowrun.run(
            ["diamond.yaml", "--report", "run.json", "--trace", "trace.json"], in: scratch.url)
        #expect(result.status == 0)
        // A run that succeeded says so in one line; --verbose lists every node.
        #expect(result.stdout.hasPrefix("4 nodes: 4 succeeded in "), "\(result.stdout)")

        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("run.json"))))
            as? [String: Any]
        #expect(report?["exitCode"] as? Int == 0)
        #expect((report?["totals"] as? [String: Int])?["succeeded"] == 4)
        let nodes = try #require(report?["nodes"] as? [[String: Any]])
        #expect(nodes.map { $0["id"] as? String } == ["start", "left", "right", "join"])
        #expect(
            nodes.allSatisfy { node in
                let spans = node["spans"] as? [[String: Any]] ?? []
                return spans.count == 1 && spans[0]["start"] is Double && spans[0]["end"] is Double
                    && node["attempts"] as? Int == 1
            })

        let trace =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("trace.json"))))
            as? [String: Any]
        let events = try #require(trace?["traceEvents"] as? [[String: Any]])
        let slices = events.filter { $0["ph"] as? String == "X" }
        #expect(slices.count == 4)
        let lanes = events.filter { $0["ph"] as? String == "M" && $0["name"] as? String == "thread_name" }
            .compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(lanes.contains("io slot 1"))
    }

    @Test func aFailedNodeExitsOneAndItsDependentsAreSkippedWithTheCause() throws {
        try scratch.write(
            "fail.yaml",
            """
            version: 1
            tasks:
              get: { type: fetch, url: missing.jpg }
              use: { type: noop, dependsOn: get }
              other: { type: noop }
            """)
        let result = try Flowrun.run(["fail.yaml", "--report", "run.json", "--verbose"], in: scratch.url)
        #expect(result.status == 1)
        let rows = result.stdout.split(separator: "\n").map(String.init)
        #expect(rows.contains { $0.hasPrefix("get ") && $0.contains(" failed ") && $0.contains("missing.jpg") })
        #expect(
            rows.contains { $0.hasPrefix("use ") && $0.contains(" skipped ") && $0.contains("upstream get failed:") })
        #expect(rows.contains { $0.hasPrefix("other ") && $0.contains(" succeeded ") })
        #expect(rows.last?.hasPrefix("3 nodes: 1 succeeded, 1 failed, 1 skipped in ") == true)
        // The failure again, pointing at the task as a compiler would; the report carries the same place.
        #expect(rows.contains { $0.hasPrefix("fail.yaml:3:3: error: get failed: ") && $0.contains("missing.jpg") })
        #expect(!rows.contains { $0.hasPrefix("fail.yaml") && $0.contains("use") })
        let report =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: scratch.path("run.json")))) as? [String: Any]
        let nodes = try #require(report?["nodes"] as? [[String: Any]])
        #expect(nodes.first { $0["id"] as? String == "get" }?["location"] as? String == "fail.yaml:3:3")
        #expect(nodes.first { $0["id"] as? String == "use" }?["location"] == nil)
    }

    @Test func graphPrintsDotMermaidAndJSON() throws {
        try scratch.write("diamond.yaml", Self.diamond)
        let dot = try Flowrun.run(["graph", "diamond.yaml"], in: scratch.url)
        #expect(dot.status == 0)
        #expect(dot.stdout.contains("\"start\" -> \"left\";"))
        let mermaid = try Flowrun.run(["graph", "diamond.yaml", "--format", "mermaid"], in: scratch.url)
        #expect(mermaid.stdout.hasPrefix("flowchart LR\n"))
        #expect(mermaid.stdout.contains("  n1 --> n3\n"))
        let json = try Flowrun.run(["graph", "diamond.yaml", "--format", "json"], in: scratch.url)
        let graph = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let join = (graph?["nodes"] as? [[String: Any]])?.first { $0["id"] as? String == "join" }
        #expect(join?["dependsOn"] as? [String] == ["left", "right"])
    }

    /// Item keys are the user's text: a `"` would end a Mermaid label, a line break would end its line, and `<`
    /// or `#` are read as markup.
    @Test func mermaidLabelsHoldItemKeysAsTheyAre() throws {
        try scratch.write(
            "keys.yaml",
            #"""
            version: 1
            tasks:
              t: { type: noop, forEach: ["q\"uote", "new\nline", "<b>#1"] }
            """#)
        let mermaid = try Flowrun.run(["graph", "keys.yaml", "--format", "mermaid"], in: scratch.url)
        #expect(mermaid.status == 0)
        #expect(
            mermaid.stdout == """
                flowchart LR
                  n0["t[q#quot;uote]<br/>noop @ default"]
                  n1["t[new<br/>line]<br/>noop @ default"]
                  n2["t[#lt;b#gt;#35;1]<br/>noop @ default"]

                """, "\(mermaid.stdout)")
        let tasks = try Flowrun.run(["graph", "keys.yaml", "--format", "mermaid", "--tasks"], in: scratch.url)
        #expect(tasks.stdout == "flowchart LR\n  t0[\"t<br/>noop @ default<br/>× 3 items\"]\n", "\(tasks.stdout)")
    }

    @Test func tasksListsEveryTypeAndSchemaIsJSON() throws {
        let tasks = try Flowrun.run(["tasks"])
        #expect(tasks.status == 0)
        for type in ["noop", "sleep", "fetch"] {
            #expect(tasks.stdout.contains("\n\(type) — ") || tasks.stdout.hasPrefix("\(type) — "))
        }
        #expect(tasks.stdout.contains("  duration  How long to wait: 250ms, 20s, 2m. (duration, required)"))
        #expect(tasks.stdout.contains("  runIf            success (default), always, allDone, anyFailed\n"))
        let schema = try Flowrun.run(["schema"])
        let object = try JSONSerialization.jsonObject(with: Data(schema.stdout.utf8)) as? [String: Any]
        #expect(object?["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    }
}

@Suite(.serialized) struct SignalTests {
    static let sleepy = """
        version: 1
        queues: { slow: { maxConcurrent: 2 } }
        tasks:
          nap: { type: sleep, duration: 60s, queue: slow, forEach: [0, 1, 2, 3, 4, 5] }
          after: { type: noop, dependsOn: nap }
        """

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalCancelsTheRunPrintsTheSummaryAndExits130(signal: Int32) throws {
        let scratch = try Scratch()
        try scratch.write("sleepy.yaml", Self.sleepy)
        let running = try Flowrun.Running(["sleepy.yaml", "--verbose", "--report", "run.json"], in: scratch.url)
        #expect(running.waitForStderr(containing: "nap[1] running"))
        let sent = Date()
        running.signal(signal)
        let result = try #require(running.wait(timeout: 10))
        #expect(Date().timeIntervalSince(sent) < 5)
        #expect(result.status == 130)
        #expect(!result.terminatedBySignal)
        #expect(result.stderr.contains("interrupted: cancelling"))
        let rows = result.stdout.split(separator: "\n")
        #expect(
            rows.contains {
                $0.hasPrefix("nap[0] ") && $0.contains(" cancelled ") && $0.contains("the run was interrupted")
            })
        #expect(rows.contains { $0.hasPrefix("nap[5] ") && $0.contains(" cancelled ") })
        #expect(result.stdout.contains("(interrupted)"))
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("run.json"))))
            as? [String: Any]
        #expect(report?["interrupted"] as? Bool == true)
        let nodes = try #require(report?["nodes"] as? [[String: Any]])
        // Queued nodes never started: only the two in the queue's slots have spans.
        #expect(nodes.filter { !(($0["spans"] as? [Any]) ?? []).isEmpty }.count == 2)
    }
}
