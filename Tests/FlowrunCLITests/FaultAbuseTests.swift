import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hostile or mistaken input through the built `flowrun`: item names that try to leave the output folder,
/// giant forEach lists, shell syntax in `command` arguments, alias bombs and deep nesting.
@Suite struct FaultAbuseTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    /// Every regular file under the scratch folder except the given ones: all must be under `out/`.
    private func filesOutside(_ folder: String, except: Set<String>) -> [String] {
        OutputFolder.files(in: scratch.path("")).filter { !$0.hasPrefix(folder + "/") && !except.contains($0) }
    }

    static let hostileNames = [
        "../../etc/x.jpg", "..", "../escape.jpg", "/abs/path/photo.jpg", "a/../../b.jpg", "..%2F..%2Fetc%2Fpasswd",
        "%2e%2e%2fup.jpg", ".", "...", ".hidden.jpg", "name with spaces.jpg", "C:\\..\\..\\win.jpg",
        "http://example.invalid/a/..%2F..%2Fup.jpg?x=/../../q", "x/", "./././",
    ]

    /// Items from a `{ file: … }` list, written to `out/${item.stem}.jpg`: every file lands inside `out/`.
    @Test func itemNamesCannotLeaveTheOutputFolderThroughTheirStem() async throws {
        // The scratch folder sits one level inside `work/`, so `..` from out/ has a folder to land in that we own.
        let work = try Scratch()
        let root = work.url.appendingPathComponent("inner")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Self.hostileNames.joined(separator: "\n").write(to: root.appendingPathComponent("names.txt"), atomically: true, encoding: .utf8)
        try """
            version: 1
            tasks:
              read: { type: fetch, forEach: { file: names.txt }, url: "\(Fixtures.photoPath("wine"))" }
              save: { type: write, path: "out/${item.stem}.jpg", dependsOn: read }
            """.write(to: root.appendingPathComponent("names.yaml"), atomically: true, encoding: .utf8)
        let result = try await Child.runFlowrun(["names.yaml", "--no-progress", "--report", "run.json"], in: root)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let everything = OutputFolder.files(in: work.url.path)
        let outside = everything.filter { !$0.hasPrefix("inner/out/") && !["inner/names.txt", "inner/names.yaml", "inner/run.json"].contains($0) }
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
        let outside = OutputFolder.files(in: work.url.path).filter { !$0.hasPrefix("inner/out/") && $0 != "inner/stems.yaml" }
        #expect(outside.isEmpty, "written outside the output folder: \(outside)")
        let written = OutputFolder.files(in: root.appendingPathComponent("out").path)
        #expect(written.count == 5 && written.contains("fine.v2.jpg"), "\(written)")
        #expect(!FileManager.default.fileExists(atPath: "/abs/rooted.jpg"))
    }

    /// Runs `flowrun validate` under `/usr/bin/time` when it is installed, for the peak resident memory.
    private func validate(_ workflow: String) async throws -> (result: Flowrun.Result, seconds: Double, peakKB: Int?) {
        let started = ContinuousClock.now
        let timeTool = "/usr/bin/time"
        let child: Child
        if FileManager.default.isExecutableFile(atPath: timeTool) {
            child = try Child(executable: URL(fileURLWithPath: timeTool),
                              ["-f", "peak-rss-kb=%M", Flowrun.binary.path, "validate", workflow], in: scratch.url)
        } else {
            child = try Child.flowrun(["validate", workflow], in: scratch.url)
        }
        let result = try #require(await child.wait(timeout: .seconds(120)), "validate \(workflow) did not finish")
        let seconds = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
        let peak = result.stderr.split(separator: "\n").last { $0.hasPrefix("peak-rss-kb=") }
            .flatMap { Int($0.dropFirst("peak-rss-kb=".count)) }
        return (result, seconds, peak)
    }

    /// 200,000 items from a file validate in bounded time and memory (a debug build: about 4 s and 100 MB here).
    @Test func aGiantForEachListValidatesInBoundedTimeAndMemory() async throws {
        let lines = (0..<200_000).map { "photos/p\($0).jpg" }
        try scratch.write("list.txt", lines.joined(separator: "\n") + "\n")
        try scratch.write("giant.yaml", """
            version: 1
            tasks:
              each: { type: noop, forEach: { file: list.txt } }
              all: { type: noop, gather: true, dependsOn: each }
            """)
        let (result, seconds, peak) = try await validate("giant.yaml")
        print("FaultAbuseTests: 200,000 items validated in \(seconds) s, peak RSS \(peak.map { "\($0 / 1024) MB" } ?? "unknown")")
        #expect(result.status == 0, "\(result.stderr.prefix(2_000))")
        #expect(result.stdout.hasPrefix("giant: 2 tasks → 200001 nodes in 2 waves\n"), "\(result.stdout.prefix(200))")
        #expect(seconds < 60)
        if let peak { #expect(peak < 1_000_000, "peak RSS \(peak) KB") }
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
        #expect(over.result.stderr.hasPrefix(
            "over.yaml:3:40: error: 'forEach' of task 'each' has 1000001 items; the limit is 1000000\n"),
            "\(over.result.stderr.prefix(500))")
        #expect(over.result.stderr.contains("1 error in over.yaml; nothing was run"))
        #expect(over.seconds < 60)

        let at = try await validate("at.yaml")
        #expect(at.result.status == 0, "\(at.result.stderr.prefix(500))")
        #expect(at.result.stdout.hasPrefix("at: 1 task → 1000000 nodes in 1 wave\n"), "\(at.result.stdout.prefix(200))")
        #expect(at.seconds < 90)
        if let peak = at.peakKB { #expect(peak < 2_000_000, "peak RSS \(peak) KB") }
        print("FaultAbuseTests: 1,000,001 refused in \(over.seconds) s; 1,000,000 accepted in \(at.seconds) s, peak RSS \(at.peakKB.map { "\($0 / 1024) MB" } ?? "unknown")")
    }

    /// The limit counts the whole workflow, not one list: 500,001 items through two tasks are refused.
    @Test func theNodeLimitCountsEveryTask() async throws {
        try scratch.write("half.txt", (0...500_000).map { "p\($0)" }.joined(separator: "\n") + "\n")
        try scratch.write("two.yaml", """
            version: 1
            tasks:
              first: { type: noop, forEach: { file: half.txt } }
              second: { type: noop, dependsOn: first }
            """)
        let (result, seconds, _) = try await validate("two.yaml")
        #expect(result.status == 2)
        #expect(result.stderr.contains("error: the workflow expands to more than 1000000 nodes"), "\(result.stderr.prefix(500))")
        #expect(result.stderr.hasPrefix("two.yaml:"), "the error is located: \(result.stderr.prefix(200))")
        #expect(seconds < 60)
    }

    /// `command` arguments that look like shell syntax reach the program verbatim; nothing is executed.
    @Test func shellSyntaxInCommandArgumentsIsPassedVerbatim() async throws {
        try FileManager.default.createDirectory(atPath: scratch.path("x"), withIntermediateDirectories: true)
        let arguments = ["$(touch pwned)", "; rm -rf x", "`touch pwned2`", "*", "&& touch pwned3", "| tee pwned4", "$HOME",
                         "> pwned5", "'\"quoted\"'", "a\\nb", "$((1+1))"]
        let yamlList = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ")
        try scratch.write("shell.yaml", """
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
                lines.append("  a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]")
            }
            lines += ["tasks:", "  t: { type: noop }"]
            text = lines.joined(separator: "\n") + "\n"
            expected = "error: aliases expand to more than 100000 nodes"
        case "deep-lists":
            text = "version: 1\ntasks:\n  t: { type: noop }\nx: " + String(repeating: "[", count: 100_000)
                + String(repeating: "]", count: 100_000) + "\n"
            expected = "error: nesting deeper than 128 levels"
        default:
            text = "version: 1\ntasks:\n  t: { type: noop }\nx: " + String(repeating: "{a: ", count: 100_000)
                + "1" + String(repeating: "}", count: 100_000) + "\n"
            expected = "error: nesting deeper than 128 levels"
        }
        try scratch.write("\(kind).yaml", text)
        let started = ContinuousClock.now
        let result = try await Child.runFlowrun(["\(kind).yaml", "--no-progress"], in: scratch.url)
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(!result.terminatedBySignal, "flowrun crashed: signal \(result.status)")
        #expect(result.status == 2, "\(result.stderr.prefix(500))")
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("\(kind).yaml:") && first.contains(expected), "\(first)")
        #expect(result.stderr.count < 10_000, "the error is short")
    }
}
