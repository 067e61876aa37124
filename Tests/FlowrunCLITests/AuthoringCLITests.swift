import Foundation
import Testing

/// Authoring features through the built `flowrun`: run conditions, targets, the task graph, env files.
@Suite struct AuthoringCLITests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    /// Three items, the second missing; a contact sheet gathers what was saved, whatever happened.
    private func writeGallery() throws {
        try scratch.write("in/a.txt", "A")
        try scratch.write("in/c.txt", "C")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              fetch: { type: fetch, forEach: [in/a.txt, in/b.txt, in/c.txt], url: "${item}", retries: 2 }
              save: { type: write, path: "out/${item.stem}.txt", dependsOn: fetch }
              contact: { type: noop, gather: true, dependsOn: save, runIf: always }
              tidy: { type: noop, dependsOn: contact }
            """)
    }

    @Test func alwaysRunsAfterAFailureAndTheReportNamesWhatWasMissing() throws {
        try writeGallery()
        let result = try Flowrun.run(["flow.yaml", "--report", "run.json"], in: scratch.url)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let report = try ReportView(scratch.path("run.json"))
        #expect(report.status("fetch[in/b.txt]") == "failed")
        #expect(report.attempts("fetch[in/b.txt]") == 1, "a missing file is not retried")
        #expect(report.status("save[in/b.txt]") == "skipped")
        #expect(report.status("contact") == "succeeded")
        #expect(report.node("contact")?["missingInputs"] as? [String] == ["save[in/b.txt]"])
        #expect(report.status("tidy") == "succeeded")
        #expect(FileManager.default.fileExists(atPath: scratch.path("out/a.txt")))
        #expect(FileManager.default.fileExists(atPath: scratch.path("out/c.txt")))
    }

    @Test func aTargetRunsOnlyItAndWhatItNeeds() throws {
        try writeGallery()
        let one = try Flowrun.run(["flow.yaml", "--target", "save[in/c.txt]", "--report", "one.json"], in: scratch.url)
        #expect(one.status == 0, "\(one.stdout)\(one.stderr)")
        #expect(try ReportView(scratch.path("one.json")).ids == ["fetch[in/c.txt]", "save[in/c.txt]"])
        #expect(try String(contentsOfFile: scratch.path("out/c.txt"), encoding: .utf8) == "C")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/a.txt")))

        let two = try Flowrun.run(
            ["flow.yaml", "--target", "save[in/a.txt]", "--target", "save[in/c.txt]", "--report", "two.json"],
            in: scratch.url)
        #expect(two.status == 0)
        #expect(
            try ReportView(scratch.path("two.json")).ids == [
                "fetch[in/a.txt]", "fetch[in/c.txt]", "save[in/a.txt]", "save[in/c.txt]",
            ])

        let unknown = try Flowrun.run(["flow.yaml", "--target", "sav"], in: scratch.url)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("error: unknown target 'sav' (did you mean 'save'?)"))
    }

    @Test(arguments: ["dot", "mermaid", "json"])
    func graphTasksDrawsOneBoxPerTask(format: String) throws {
        try writeGallery()
        let result = try Flowrun.run(["graph", "flow.yaml", "--tasks", "--format", format], in: scratch.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("fetch[in/b.txt]"), "no node ids")
        switch format {
        case "dot":
            #expect(result.stdout.contains(#""fetch" [label="fetch\nfetch @ default\n× 3 items"];"#))
            #expect(result.stdout.contains(#""save" -> "contact" [style=dashed, label="gather"];"#))
        case "mermaid":
            #expect(result.stdout.contains(#"t0["fetch<br/>fetch @ default<br/>× 3 items"]"#))
            #expect(result.stdout.contains("t0 --> t1\n"))
            #expect(result.stdout.contains("t1 -. gather .-> t2\n"))
        default:
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let tasks = try #require(json["tasks"] as? [[String: Any]])
            #expect(tasks.map { $0["id"] as? String } == ["fetch", "save", "contact", "tidy"])
            #expect(tasks[0]["nodes"] as? Int == 3)
            #expect(tasks[2]["runIf"] as? String == "always")
            #expect(tasks[2]["dependsOn"] as? [String] == ["save"])
        }
    }

    @Test func anEnvFileFeedsEnvReferencesAndTheShellWins() throws {
        try scratch.write("in/a.txt", "A")
        try scratch.write("in/b.txt", "B")
        try scratch.write(
            "settings.env",
            """
            # where the photo is
            export SOURCE=in/a.txt
            TARGET="out/from env.txt"   # quoted: the space stays
            """)
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              get: { type: fetch, url: "${env.SOURCE}" }
              put: { type: write, path: "${env.TARGET}", dependsOn: get }
            """)
        let result = try Flowrun.run(
            ["flow.yaml", "--env-file", "settings.env"], in: scratch.url, environment: ["SOURCE": "in/b.txt"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try String(contentsOfFile: scratch.path("out/from env.txt"), encoding: .utf8) == "B")
    }

    @Test func aMalformedEnvFileIsReportedLineByLineAndNothingRuns() throws {
        try scratch.write("bad.env", "OK=1\nno equals here\n2BAD=x\nQUOTE=\"open\n")
        try scratch.write(
            "flow.yaml",
            "version: 1\ntasks:\n  put: { type: write, path: out.txt, dependsOn: get }\n  get: { type: fetch, url: flow.yaml }\n"
        )
        let result = try Flowrun.run(["flow.yaml", "--env-file", "bad.env"], in: scratch.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("bad.env:2:1: error: expected NAME=value"), "\(result.stderr)")
        #expect(result.stderr.contains("bad.env:3:1: error: invalid variable name '2BAD'"))
        #expect(result.stderr.contains("bad.env:4:7: error: unterminated double-quoted value of 'QUOTE'"))
        #expect(result.stderr.contains("3 errors in --env-file; nothing was run"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.txt")))

        let missing = try Flowrun.run(["flow.yaml", "--env-file", "nope.env"], in: scratch.url)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("error: cannot read env file 'nope.env'"))
    }

    @Test func aPipelineImportedTwiceRunsWithEachWith() throws {
        try scratch.write("in/a.txt", "A")
        try scratch.write("in/b.txt", "B")
        try scratch.write(
            "pipelines/copy.yaml",
            """
            version: 1
            params: { dir: out, suffix: txt }
            tasks:
              save: { type: write, path: "${params.dir}/${item.stem}.${params.suffix}" }
              done: { type: noop, dependsOn: save }
            """)
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            params: { base: result }
            tasks:
              fetch: { type: fetch, forEach: [in/a.txt, in/b.txt], url: "${item}" }
              small: { uses: pipelines/copy.yaml, with: { dir: "${params.base}/small" }, dependsOn: fetch }
              large: { uses: pipelines/copy.yaml, with: { dir: "${params.base}/large", suffix: dat }, dependsOn: fetch }
              report: { type: noop, gather: true, dependsOn: [small, large] }
            """)
        let result = try Flowrun.run(
            ["flow.yaml", "--param", "large.suffix=bin", "--report", "run.json"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for path in ["result/small/a.txt", "result/small/b.txt", "result/large/a.bin", "result/large/b.bin"] {
            #expect(FileManager.default.fileExists(atPath: scratch.path(path)), "\(path)")
        }
        let report = try ReportView(scratch.path("run.json"))
        #expect(report.ids.contains("small.save[in/b.txt]"))
        #expect(report.ids.last == "report")

        let graph = try Flowrun.run(["graph", "flow.yaml", "--tasks"], in: scratch.url)
        #expect(graph.stdout.contains("subgraph \"cluster_small\" {\n    label=\"small (pipelines/copy.yaml)\";"))
        #expect(graph.stdout.contains("\"small.done\" -> \"report\""), "a dependency on a group is on its exits")

        let target = try Flowrun.run(["flow.yaml", "--target", "large", "--report", "large.json"], in: scratch.url)
        #expect(target.status == 0)
        #expect(
            try ReportView(scratch.path("large.json")).ids == [
                "fetch[in/a.txt]", "fetch[in/b.txt]", "large.save[in/a.txt]", "large.save[in/b.txt]",
                "large.done[in/a.txt]", "large.done[in/b.txt]",
            ])
    }

    @Test func aCachedDependencyCountsAsSucceededForRunConditions() throws {
        try scratch.write("a.txt", "A")
        try scratch.write(
            "w.yaml",
            """
            version: 1
            tasks:
              get: { type: fetch, url: a.txt }
              put: { type: write, path: out/a.txt, dependsOn: get }
              alert: { type: noop, dependsOn: put, runIf: anyFailed }
            """)
        for run in ["first.json", "second.json"] {
            let result = try Flowrun.run(["w.yaml", "--no-progress", "--report", run], in: scratch.url)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let report = try ReportView(scratch.path(run))
            #expect(report.status("alert") == "skipped", "\(run): \(result.stdout)")
            #expect(report.cause("alert") == "runIf: anyFailed, and no dependency failed")
        }
        #expect(try ReportView(scratch.path("second.json")).status("put") == "cached")
    }
}
