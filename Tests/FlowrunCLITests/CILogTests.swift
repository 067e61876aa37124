import Foundation
import TestSupport
import Testing

/// What flowrun says to a CI log, through the binary, as whole outputs: a run with two broken images (its
/// progress lines, its summary, GitHub's annotations, the JUnit file), the short plan of a 1,000-item workflow,
/// one error for one typo.
@Suite struct CILogTests {
    let scratch: Scratch

    /// Four photos, two of them broken: each is fetched, decoded, made a thumbnail and written.
    static let site = """
        version: 1
        name: site
        tasks:
          fetch: { type: fetch, forEach: { glob: "content/*.jpg" }, url: "${item}" }
          decode: { type: decode, dependsOn: fetch }
          thumb: { type: resize, width: 16, dependsOn: decode }
          save: { type: write, path: "out/${item.stem}.png", dependsOn: thumb }

        """

    init() throws {
        scratch = try Scratch()
        try scratch.write("site.yaml", Self.site)
        try scratch.write("content/a.jpg", try Fixtures.photo("wine"))
        try scratch.write("content/b.jpg", "not a JPEG at all")
        try scratch.write("content/c.jpg", try Fixtures.photo("wine"))
        try scratch.write("content/d.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00]))
    }

    static func golden(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens/\(name)")
    }

    /// Runs flowrun in the scratch folder with pipes for stdout and stderr, as a CI does.
    func flowrun(_ arguments: [String], environment: [String: String] = [:]) async throws -> Flowrun.Result {
        let child = try Child.flowrun(arguments, in: scratch.url, environment: environment)
        return try #require(await child.wait(), "flowrun \(arguments.joined(separator: " ")) did not finish")
    }

    /// The command line, its exit status, stdout and stderr, with what differs between runs replaced: the
    /// elapsed times, the durations, the scratch folder.
    static func transcript(_ arguments: [String], _ result: Flowrun.Result, scratch: Scratch) -> String {
        let text =
            "$ flowrun \(arguments.joined(separator: " ")) (exit \(result.status))\n\(result.stdout)--- stderr\n"
            + result.stderr
        return normalized(text, scratch: scratch)
    }

    static func normalized(_ text: String, scratch: Scratch) -> String {
        text.replacingOccurrences(of: scratch.url.path, with: "SCRATCH")
            .replacingOccurrences(of: #"\[[0-9hms.]+\]"#, with: "[TIME]", options: .regularExpression)
            .replacingOccurrences(of: #" in [0-9.]+m?s\b"#, with: " in TIME", options: .regularExpression)
            .replacingOccurrences(of: #"time="[0-9.]+""#, with: #"time="T""#, options: .regularExpression)
    }

    func expectGolden(_ name: String, _ text: String) throws {
        let expected = try Golden.expected(for: text, at: Self.golden(name))
        #expect(text == expected)
    }

    /// No carriage return and no escape code: a log is read as plain lines.
    static func isPlain(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0 == "\r" || $0 == "\u{1B}" }
    }

    @Test func aRunWithTwoBrokenImagesSaysEachFailureOnceInPlainLines() async throws {
        let arguments = ["site.yaml", "--progress", "auto", "--progress-interval", "1h"]
        let result = try await flowrun(arguments)
        #expect(result.status == 1)
        #expect(Self.isPlain(result.stdout + result.stderr))
        try expectGolden("ci-log-broken-images.txt", Self.transcript(arguments, result, scratch: scratch))
    }

    @Test func verboseListsEveryNodeAndQuietOnlyTheFailures() async throws {
        let verbose = try await flowrun(["site.yaml", "--verbose"])
        let quiet = try await flowrun(["site.yaml", "--quiet"])
        #expect(verbose.status == 1 && quiet.status == 1)
        let table = verbose.stdout.split(separator: "\n").filter { $0.contains("  skipped  ") }
        #expect(table.count == 4, "\(verbose.stdout)")
        try expectGolden(
            "ci-log-broken-images-quiet.txt", Self.transcript(["site.yaml", "--quiet"], quiet, scratch: scratch))
    }

    /// A plain line of every task at each interval while a node runs, as a log needs: here the node runs until
    /// the test has seen one.
    @Test func aLongRunWritesEveryTasksCountsAtEachInterval() async throws {
        try scratch.write(
            "wait.yaml",
            """
            version: 1
            name: wait
            tasks:
              hold: { type: command, argv: [sh, -c, "while [ ! -e go ]; do sleep 0.05; done"] }
              after: { type: command, argv: ["true"], dependsOn: hold }

            """)
        let arguments = ["wait.yaml", "--progress", "plain", "--progress-interval", "1s"]
        let child = try Child.flowrun(arguments, in: scratch.url)
        #expect(await child.waitForStderr(containing: "0/2 done, 1 running: "))
        try scratch.write("go", "")
        let result = try #require(await child.wait())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.isPlain(result.stderr))
        // One interval line or more (the machine may be slow to create the file), then each task's end — with an
        // interval line between the two when the machine is slow to start `after`.
        let lines = Self.normalized(result.stderr, scratch: scratch).split(separator: "\n").map(String.init)
        let whileHolding = "[TIME] 0/2 done, 1 running: hold 0/1 (1 running), after 0/1"
        let whileAfter = "[TIME] 1/2 done, 1 running: hold 1/1, after 0/1 (1 running)"
        let ends = ["[TIME] hold ended: 1 succeeded", "[TIME] after ended: 1 succeeded"]
        #expect(lines.first == whileHolding, "\(result.stderr)")
        #expect(lines.filter { $0.contains(" ended: ") } == ends, "\(result.stderr)")
        let holdEnded = lines.firstIndex(of: ends[0]) ?? 0
        #expect(
            lines[..<holdEnded].allSatisfy { $0 == whileHolding }
                && lines[holdEnded...].allSatisfy { ends.contains($0) || $0 == whileAfter }, "\(result.stderr)")
    }

    @Test func progressModesAreCheckedWhereverTheyComeFrom() async throws {
        let bad = try await flowrun(["site.yaml", "--progress", "fancy"])
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("Error: The value 'fancy' is invalid for '--progress <mode>'"), "\(bad.stderr)")
        let environment = try await flowrun(["site.yaml"], environment: ["FLOWRUN_PROGRESS": "fancy"])
        #expect(environment.status == 2)
        #expect(
            environment.stderr.hasPrefix(
                "Error: FLOWRUN_PROGRESS='fancy' is not a progress mode: auto, tty, plain or none\n"),
            "\(environment.stderr)")
        let interval = try await flowrun(["site.yaml", "--progress-interval", "100ms"])
        #expect(interval.status == 2)
        #expect(interval.stderr.contains("expected a duration from 1s to 1h, such as 15s"), "\(interval.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "it ran")
    }

    @Test func githubAnnotationsNameEachFailureAtItsTask() async throws {
        let arguments = ["site.yaml", "--annotations", "github", "--quiet"]
        let asked = try await flowrun(arguments)
        try expectGolden("ci-log-github-annotations.txt", Self.transcript(arguments, asked, scratch: scratch))
        let inActions = try await flowrun(["site.yaml", "--quiet"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(inActions.stdout == asked.stdout)
        let refused = try await flowrun(
            ["site.yaml", "--quiet", "--annotations", "none"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(!refused.stdout.contains("::error"), "\(refused.stdout)")
    }

    @Test func githubAnnotationsNameWorkflowErrors() async throws {
        try scratch.write(
            "typo.yaml",
            """
            version: 1
            name: typo
            tasks:
              fetch: { type: fetch, url: "content/a.jpg" }
              decode: { type: decode, dependsOn: fetc }

            """)
        let arguments = ["validate", "typo.yaml"]
        let result = try await flowrun(arguments, environment: ["GITHUB_ACTIONS": "true"])
        try expectGolden("ci-log-github-workflow-error.txt", Self.transcript(arguments, result, scratch: scratch))
    }

    @Test func theJUnitReportHasATestCasePerNodeAndIsValid() async throws {
        let arguments = ["site.yaml", "--junit", "report.xml", "--quiet"]
        let result = try await flowrun(arguments)
        #expect(result.status == 1)
        let xml = try String(contentsOfFile: scratch.path("report.xml"), encoding: .utf8)
        try expectGolden("ci-log-junit.xml", Self.normalized(xml, scratch: scratch))
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("JUnitSchema/junit-10.xsd").path
        let xmllint = "/usr/bin/xmllint"
        try #require(
            FileManager.default.isExecutableFile(atPath: xmllint), "xmllint is missing (Debian: libxml2-utils)")
        let check = try runToEnd(xmllint, ["--noout", "--schema", schema, scratch.path("report.xml")])
        #expect(check.status == 0, "\(check.output)")
    }
}
