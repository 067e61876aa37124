import Foundation
import Testing

/// `resize` with `withoutEnlargement: skip`, through the binary: a source smaller than the width asked is not
/// written under that width; its node ends `skipped` saying why, its dependents are skipped, the gathers after them
/// see only the files that exist, and the run succeeds.
@Suite struct SkipEnlargementCLITests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        // 1024 × 682 and 682 × 1024: both shrink to 600 px wide, only the first to 900.
        _ = try scratch.write("in/big.jpg", Fixtures.photo("aitzgorri"))
        _ = try scratch.write("in/small.jpg", Fixtures.photo("friends"))
        try scratch.write("flow.yaml", Self.workflow)
    }

    static let workflow = """
        version: 1
        tasks:
          read: { type: fetch, forEach: { glob: "in/*.jpg" }, url: "${item}" }
          decode: { type: decode, dependsOn: read }
          w600: { type: resize, width: 600, withoutEnlargement: skip, dependsOn: decode }
          w900: { type: resize, width: 900, withoutEnlargement: skip, dependsOn: decode }
          save600: { type: write, path: "out/${item.stem}-600.jpg", dependsOn: w600 }
          save900: { type: write, path: "out/${item.stem}-900.jpg", dependsOn: w900 }
          info: { type: probe, dependsOn: save900 }
          table: { type: catalogue, gather: true, path: out/sizes.csv, dependsOn: info }
          all: { type: write, gather: true, path: out/probes.jsonl, dependsOn: info }
          list: { type: command, gather: true, dependsOn: [save600, save900], argv: [printf, "%s\\n", "${inputs}"] }
          listed: { type: write, path: out/inputs.txt, dependsOn: list }

        """

    /// The summary with its duration taken out: the rest is the same on every machine.
    static func timeless(_ text: String) -> String {
        text.replacingOccurrences(of: #" in [0-9.]+m?s\n"#, with: " in T\n", options: .regularExpression)
    }

    @Test func aResizeThatWouldEnlargeIsSkippedSayingWhyAndTheRunSucceeds() async throws {
        let result = try await Child.runFlowrun(
            ["flow.yaml", "--no-progress", "--report", "report.json", "--junit", "junit.xml"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            Self.timeless(result.stdout) == """
                (--verbose lists every node with its cause)
                18 nodes: 15 succeeded, 3 skipped in T

                """, "\(result.stdout)")
        #expect(result.stderr == "")
        #expect(
            OutputFolder.files(in: scratch.path("out"))
                == ["big-600.jpg", "big-900.jpg", "inputs.txt", "probes.jsonl", "sizes.csv", "small-600.jpg"])

        let report = try ReportView(scratch.path("report.json"))
        #expect(report.exitCode == 0)
        let skipped = report.nodes.filter { $0["status"] as? String == "skipped" }.map {
            "\($0["id"] ?? "") \($0["code"] ?? ""): \($0["cause"] ?? "")"
        }
        #expect(
            skipped == [
                "w900[in/small.jpg] notNeeded: source is 682 px wide, under 900",
                "save900[in/small.jpg] upstream: upstream w900[in/small.jpg] was skipped",
                "info[in/small.jpg] upstream: upstream w900[in/small.jpg] was skipped",
            ])
        // A skipped node's time is what its skip took, 0.000 or 0.001 s on a loaded machine: left out.
        let junit = try String(contentsOfFile: scratch.path("junit.xml"), encoding: .utf8)
            .replacing(#/ time="[0-9.]+"/#, with: "")
        #expect(
            junit.contains(
                """
                    <testcase name="w900[in/small.jpg]" classname="flow.w900">
                      <skipped message="skipped: source is 682 px wide, under 900"/>
                    </testcase>
                """), "\(junit)")
        #expect(junit.contains(#"<testsuites name="flow" tests="18" failures="0" errors="0" skipped="3""#), "\(junit)")

        // Every gather after the skip got exactly the files that were written.
        #expect(
            try String(contentsOfFile: scratch.path("out/inputs.txt"), encoding: .utf8)
                == "out/big-600.jpg\nout/small-600.jpg\nout/big-900.jpg\n")
        #expect(
            try String(contentsOfFile: scratch.path("out/sizes.csv"), encoding: .utf8) == """
                alpha,altitude,colorProfile,dateTaken,exposureTime,fNumber,focalLength,format,height,iso,latitude,\
                lens,longitude,make,model,orientation,source,width\r
                false,,,,,,,jpeg,599,,,,,,,1,out/big-900.jpg,900\r

                """)
        let probes = try String(contentsOfFile: scratch.path("out/probes.jsonl"), encoding: .utf8)
        #expect(probes.split(separator: "\n").count == 1 && probes.contains(#""source":"out/big-900.jpg""#))
    }

    /// The store records the skip with the node's key: an unchanged rerun skips the same nodes again without
    /// decoding the source, and says so in the dry run and `explain`.
    @Test func anUnchangedRerunSkipsAgainWithoutDecoding() async throws {
        let first = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let written = try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/big-900.jpg")))

        let dryRun = try await Child.runFlowrun(["flow.yaml", "--dry-run"], in: scratch.url)
        #expect(
            dryRun.stdout.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("store") }
                .joined(separator: "\n") == """
                    store .flowrun: 16 results recorded; 1 node will run, 14 cached, 3 skipped
                      read     0 run, 2 cached
                      decode   0 run, 2 cached
                      w600     0 run, 2 cached
                      w900     0 run, 1 cached, 1 skipped
                        w900[in/small.jpg]: skips again: source is 682 px wide, under 900
                      save600  0 run, 2 cached
                      save900  0 run, 1 cached, 1 skipped
                      info     0 run, 1 cached, 1 skipped
                      list     1 run, 0 cached
                        list: never reused without `cache: true` (side effects)
                      table    0 run, 1 cached
                      all      0 run, 1 cached
                      listed   0 run, 1 cached (1 runs if list's output changes)

                    valid: nothing was fetched, decoded or written

                    """, "\(dryRun.stdout)")
        let explain = try await Child.runFlowrun(["explain", "flow.yaml", "info[in/small.jpg]"], in: scratch.url)
        #expect(
            explain.stdout.replacingOccurrences(of: #"key [0-9a-f]{12}"#, with: "key K", options: .regularExpression)
                .replacingOccurrences(of: #"run of [0-9T:-]+Z"#, with: "run of R", options: .regularExpression) == """
                    info[in/small.jpg] (key K): skipped: upstream w900[in/small.jpg] skips again
                      w900[in/small.jpg] (key K): skipped: it skipped itself for the same key in the run of R (source is \
                    682 px wide, under 900); it skips again without running what it reads, until its inputs change

                    """, "\(explain.stdout)")

        let rerun = try await Child.runFlowrun(
            ["flow.yaml", "--no-progress", "--report", "report.json"], in: scratch.url)
        #expect(rerun.status == 0, "\(rerun.stdout)\(rerun.stderr)")
        #expect(
            Self.timeless(rerun.stdout) == """
                (--verbose lists every node with its cause)
                18 nodes: 1 succeeded, 14 cached, 3 skipped in T

                """, "\(rerun.stdout)")
        let report = try ReportView(scratch.path("report.json"))
        #expect(report.status("decode[in/small.jpg]") == "cached")
        #expect(report.status("w900[in/small.jpg]") == "skipped")
        #expect(report.attempts("w900[in/small.jpg]") == 0)
        #expect(report.node("w900[in/small.jpg]")?["code"] as? String == "notNeeded")
        #expect(report.cause("w900[in/small.jpg]") == "source is 682 px wide, under 900")
        #expect(report.cause("info[in/small.jpg]") == "upstream w900[in/small.jpg] was skipped")
        #expect(
            OutputFolder.files(in: scratch.path("out"))
                == ["big-600.jpg", "big-900.jpg", "inputs.txt", "probes.jsonl", "sizes.csv", "small-600.jpg"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/big-900.jpg"))) == written)
        #expect(
            try String(contentsOfFile: scratch.path("out/inputs.txt"), encoding: .utf8)
                == "out/big-600.jpg\nout/small-600.jpg\nout/big-900.jpg\n")
    }

    /// A source that changes is decided again: large enough, it is written under the width; small again, it is
    /// skipped again, and the file it had made is stale, so `clean --stale` removes it.
    @Test func aChangedSourceIsDecidedAgainAndWhatItNoLongerMakesIsStale() async throws {
        let first = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")

        _ = try scratch.write("in/small.jpg", Fixtures.photo("sunset"))  // 1024 × 683
        let larger = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(Self.timeless(larger.stdout) == "18 nodes: 12 succeeded, 6 cached in T\n", "\(larger.stdout)")
        #expect(
            try String(contentsOfFile: scratch.path("out/inputs.txt"), encoding: .utf8)
                == "out/big-600.jpg\nout/small-600.jpg\nout/big-900.jpg\nout/small-900.jpg\n")

        _ = try scratch.write("in/small.jpg", Fixtures.photo("friends"))
        let smaller = try await Child.runFlowrun(
            ["flow.yaml", "--no-progress", "--report", "report.json"], in: scratch.url)
        #expect(
            Self.timeless(smaller.stdout) == """
                (--verbose lists every node with its cause)
                18 nodes: 9 succeeded, 6 cached, 3 skipped in T

                """, "\(smaller.stdout)")
        let report = try ReportView(scratch.path("report.json"))
        #expect(report.status("decode[in/small.jpg]") == "succeeded")
        #expect(report.attempts("w900[in/small.jpg]") == 1)
        #expect(report.cause("w900[in/small.jpg]") == "source is 682 px wide, under 900")
        #expect(
            try String(contentsOfFile: scratch.path("out/inputs.txt"), encoding: .utf8)
                == "out/big-600.jpg\nout/small-600.jpg\nout/big-900.jpg\n")

        let clean = try await Child.runFlowrun(["clean", "--stale", "flow.yaml"], in: scratch.url)
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
        #expect(
            clean.stdout + clean.stderr == """
                removed out/small-900.jpg (written by save900[in/small.jpg])
                removed 1 file; left 0 files

                """)
        #expect(
            OutputFolder.files(in: scratch.path("out"))
                == ["big-600.jpg", "big-900.jpg", "inputs.txt", "probes.jsonl", "sizes.csv", "small-600.jpg"])
        let again = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(Self.timeless(again.stdout).hasSuffix("18 nodes: 1 succeeded, 14 cached, 3 skipped in T\n"))
    }

    @Test func aWrongValueNamesTheAllowedOnes() async throws {
        try scratch.write(
            "bad.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: in/big.jpg }
              decode: { type: decode, dependsOn: read }
              a: { type: resize, width: 600, withoutEnlargement: skipp, dependsOn: decode }
              b: { type: resize, width: 700, withoutEnlargement: 1, dependsOn: decode }

            """)
        let result = try await Child.runFlowrun(["validate", "bad.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                bad.yaml:5:54: error: parameter 'withoutEnlargement' of task 'a' (resize) must be true, false or skip, \
                found 'skipp' (did you mean 'skip'?)
                 5 |   a: { type: resize, width: 600, withoutEnlargement: skipp, dependsOn: decode }
                   |                                                      ^
                bad.yaml:6:54: error: parameter 'withoutEnlargement' of task 'b' (resize) must be true, false or skip, \
                found '1'
                 6 |   b: { type: resize, width: 700, withoutEnlargement: 1, dependsOn: decode }
                   |                                                      ^
                2 errors in bad.yaml; nothing was run

                """, "\(result.stderr)")
    }
}
