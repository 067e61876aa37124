import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile or mistaken input through the built `flowrun`: item names that try to leave the output folder,
/// shell syntax in `command` arguments, alias bombs and deep nesting.
@Suite struct FaultAbuseTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    static let hostileNames = [
        "../../etc/x.jpg", "..", "../escape.jpg", "/abs/path/photo.jpg", "a/../../b.jpg", "..%2F..%2Fetc%2Fpasswd",
        "%2e%2e%2fup.jpg", ".", "...", ".hidden.jpg", "name with spaces.jpg", "C:\\..\\..\\win.jpg",
        "http://example.invalid/a/..%2F..%2Fup.jpg?x=/../../q", "x/", "./././",
    ]

    /// Items from a `{ file: … }` list, written to `out/${item.index}-${item.stem}.jpg` (several hostile names
    /// share a stem, and two nodes writing one file is an error): every file lands inside `out/`.
    @Test func itemNamesCannotLeaveTheOutputFolderThroughTheirStem() async throws {
        // The scratch folder sits one level inside `work/`, so `..` from out/ has a folder to land in that we own.
        let work = try Scratch()
        let root = work.url.appendingPathComponent("inner")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Self.hostileNames.joined(separator: "\n").write(
            to: root.appendingPathComponent("names.txt"), atomically: true, encoding: .utf8)
        try """
        version: 1
        tasks:
          read: { type: fetch, forEach: { file: names.txt }, url: "\(Fixtures.photoPath("wine"))" }
          save: { type: write, path: "out/${item.index}-${item.stem}.jpg", dependsOn: read }
        """.write(to: root.appendingPathComponent("names.yaml"), atomically: true, encoding: .utf8)
        let result = try await Child.runFlowrun(["names.yaml", "--no-progress", "--report", "run.json"], in: root)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let everything = OutputFolder.files(in: work.url.path)
        let outside = everything.filter {
            !$0.hasPrefix("inner/out/") && !$0.hasPrefix("inner/.flowrun/")  // the store, beside the workflow
                && !["inner/names.txt", "inner/names.yaml", "inner/run.json"].contains($0)
        }
        #expect(outside.isEmpty, "written outside the output folder: \(outside)")
        let written = OutputFolder.files(in: root.appendingPathComponent("out").path)
        #expect(!written.isEmpty && written.allSatisfy { !$0.contains("/") && !$0.hasPrefix("..") }, "\(written)")
        #expect(!FileManager.default.fileExists(atPath: "/abs/path/photo.jpg"))
        #expect(!FileManager.default.fileExists(atPath: "/etc/x.jpg"))
    }

    /// Map items may name their own `stem`; `${item.stem}` still is a file name, never a way out of the folder.
    @Test func aMapItemsOwnStemCannotLeaveTheOutputFolder() async throws {
        let work = try Scratch()
        let root = work.url.appendingPathComponent("inner")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try """
        version: 1
        tasks:
          read:
            type: fetch
            forEach: [{ stem: "../escaped" }, { stem: "../../farther" }, { stem: "/abs/rooted" }, { stem: ".." }, { stem: "fine.v2" }]
            url: "\(Fixtures.photoPath("wine"))"
          save: { type: write, path: "out/${item.stem}.jpg", dependsOn: read }
        """.write(to: root.appendingPathComponent("stems.yaml"), atomically: true, encoding: .utf8)
        let result = try await Child.runFlowrun(["stems.yaml", "--no-progress"], in: root)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let outside = OutputFolder.files(in: work.url.path).filter {
            !$0.hasPrefix("inner/out/") && !$0.hasPrefix("inner/.flowrun/") && $0 != "inner/stems.yaml"
        }
        #expect(outside.isEmpty, "written outside the output folder: \(outside)")
        let written = OutputFolder.files(in: root.appendingPathComponent("out").path)
        #expect(written.count == 5 && written.contains("fine.v2.jpg"), "\(written)")
        #expect(!FileManager.default.fileExists(atPath: "/abs/rooted.jpg"))
    }

    /// `command` arguments that look like shell syntax reach the program verbatim; nothing is executed.
    @Test func shellSyntaxInCommandArgumentsIsPassedVerbatim() async throws {
        try FileManager.default.createDirectory(atPath: scratch.path("x"), withIntermediateDirectories: true)
        let arguments = [
            "$(touch pwned)", "; rm -rf x", "`touch pwned2`", "*", "&& touch pwned3", "| tee pwned4", "$HOME",
            "> pwned5", "'\"quoted\"'", "a\\nb", "$((1+1))",
        ]
        let yamlList = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(
            separator: ", ")
        try scratch.write(
            "shell.yaml",
            """
            version: 1
            tasks:
              echo: { type: command, argv: ["/bin/echo", \(yamlList)] }
              # write refuses a .txt extension for data; format: png only passes the bytes through.
              keep: { type: write, path: echo.out.txt, format: png, dependsOn: echo }
              each: { type: command, argv: ["/bin/sh", "-c", 'printf "%s\\n" "$@" > args.txt', "sh", \(yamlList)] }
            """)
        let result = try await Child.runFlowrun(["shell.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let echoed = try String(contentsOfFile: scratch.path("echo.out.txt"), encoding: .utf8)
        #expect(echoed == arguments.joined(separator: " ") + "\n")
        let received = try String(contentsOfFile: scratch.path("args.txt"), encoding: .utf8)
        #expect(received == arguments.joined(separator: "\n") + "\n")
        let files = OutputFolder.files(in: scratch.path(""))
        #expect(!files.contains { $0.hasPrefix("pwned") }, "\(files)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("x")))
    }

    /// A billion-laughs alias bomb and 100,000 levels of nesting: exit 2 at once with a located error, no crash.
    @Test(arguments: ["bomb", "deep-lists", "deep-maps"])
    func hostileYAMLIsRefusedQuicklyWithALocatedError(kind: String) async throws {
        let text: String
        let expected: String
        switch kind {
        case "bomb":
            var lines = ["version: 1", "params:", "  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
            for level in 1...9 {
                let previous = "*a\(level - 1)"
                lines.append(
                    "  a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]")
            }
            lines += ["tasks:", "  t: { type: noop }"]
            text = lines.joined(separator: "\n") + "\n"
            expected = "error: aliases expand to more than 100000 nodes"
        case "deep-lists":
            text =
                "version: 1\ntasks:\n  t: { type: noop }\nx: " + String(repeating: "[", count: 100_000)
                + String(repeating: "]", count: 100_000) + "\n"
            expected = "error: nesting deeper than 128 levels"
        default:
            text =
                "version: 1\ntasks:\n  t: { type: noop }\nx: " + String(repeating: "{a: ", count: 100_000)
                + "1" + String(repeating: "}", count: 100_000) + "\n"
            expected = "error: nesting deeper than 128 levels"
        }
        try scratch.write("\(kind).yaml", text)
        let child = try Child.measuredFlowrun(["\(kind).yaml", "--no-progress"], in: scratch.url)
        let result = try #require(await child.wait(timeout: .seconds(600)))
        if let measured = Measured(result) { #expect(measured.userCPU < 2, "\(measured.userCPU) s of CPU") }
        #expect(!result.terminatedBySignal, "flowrun crashed: signal \(result.status)")
        #expect(result.status == 2, "\(result.stderr.prefix(500))")
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("\(kind).yaml:") && first.contains(expected), "\(first)")
        let rendered = result.stderr.split(separator: "\n").filter { !$0.hasPrefix(Measured.marker) }.joined(
            separator: "\n")
        #expect(rendered.count < 2_000, "the error is short: \(rendered.count) characters")
    }
}

extension FaultHeavyTests {
    /// Large lists, one at a time: each keeps a core busy for seconds, and the machine has two.
    @Suite(.serialized) struct FaultLimitTests {
        let scratch: Scratch

        init() throws { scratch = try Scratch() }

        /// Runs `flowrun validate`, measured by `/usr/bin/time` when it is installed.
        private func validate(_ workflow: String) async throws -> (result: Flowrun.Result, measured: Measured?) {
            let child = try Child.measuredFlowrun(["validate", workflow], in: scratch.url)
            let result = try #require(await child.wait(timeout: .seconds(300)), "validate \(workflow) did not finish")
            return (result, Measured(result))
        }

        /// 200,000 items from a file validate in bounded time and memory (a debug build: about 5 s and 100 MB here).
        @Test func aGiantForEachListValidatesInBoundedTimeAndMemory() async throws {
            let lines = (0..<200_000).map { "photos/p\($0).jpg" }
            try scratch.write("list.txt", lines.joined(separator: "\n") + "\n")
            try scratch.write(
                "giant.yaml",
                """
                version: 1
                tasks:
                  each: { type: noop, forEach: { file: list.txt } }
                  all: { type: noop, gather: true, dependsOn: each }
                """)
            let (result, measured) = try await validate("giant.yaml")
            print(
                "FaultLimitTests: 200,000 items validated: \(measured.map { "\($0.elapsed) s, \($0.userCPU) s CPU, peak RSS \($0.peakKB / 1024) MB" } ?? "not measured")"
            )
            #expect(result.status == 0, "\(result.stderr.prefix(2_000))")
            #expect(
                result.stdout.hasPrefix("giant: 2 tasks → 200001 nodes in 2 waves\n"), "\(result.stdout.prefix(200))")
            if let measured {
                #expect(measured.userCPU < 60)
                #expect(measured.peakKB < 1_000_000, "peak RSS \(measured.peakKB) KB")
            }
        }

        /// The limit is 1,000,000 nodes: a list of 1,000,001 is refused with a located error (before anything is
        /// expanded), and one of exactly 1,000,000 is accepted.
        @Test func theNodeLimitRefusesOneItemTooManyAndAcceptsTheLimit() async throws {
            let lines = (0..<1_000_001).map { "p\($0)" }.joined(separator: "\n")
            try scratch.write("over.txt", lines + "\n")
            try scratch.write("at.txt", String(lines[..<lines.range(of: "\np1000000")!.lowerBound]) + "\n")
            try scratch.write("over.yaml", "version: 1\ntasks:\n  each: { type: noop, forEach: { file: over.txt } }\n")
            try scratch.write("at.yaml", "version: 1\ntasks:\n  each: { type: noop, forEach: { file: at.txt } }\n")

            let over = try await validate("over.yaml")
            #expect(over.result.status == 2)
            #expect(over.result.stdout.isEmpty)
            #expect(
                over.result.stderr.hasPrefix(
                    "over.yaml:3:40: error: the forEach file 'over.txt' has more than 1000000 items "
                        + "(line 1000001 is item 1000001); the limit is 1000000\n"),
                "\(over.result.stderr.prefix(500))")
            #expect(over.result.stderr.contains("1 error in over.yaml; nothing was run"))
            if let measured = over.measured { #expect(measured.userCPU < 60) }

            let at = try await validate("at.yaml")
            #expect(at.result.status == 0, "\(at.result.stderr.prefix(500))")
            #expect(
                at.result.stdout.hasPrefix("at: 1 task → 1000000 nodes in 1 wave\n"), "\(at.result.stdout.prefix(200))")
            if let measured = at.measured {
                #expect(measured.userCPU < 120)
                #expect(measured.peakKB < 2_000_000, "peak RSS \(measured.peakKB) KB")
            }
            print(
                "FaultLimitTests: 1,000,001 refused: \(over.measured.map { "\($0.elapsed) s" } ?? "not measured"); "
                    + "1,000,000 accepted: \(at.measured.map { "\($0.elapsed) s, peak RSS \($0.peakKB / 1024) MB" } ?? "not measured")"
            )
        }
    }
}
