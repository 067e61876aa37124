import Foundation
import TestSupport
import Testing

/// `validate` and `--dry-run` print a plan that fits a screen, through the binary: a line per task, with what
/// runs and why (a few nodes per cause); every node with `--plan nodes` or `--verbose`; the verdict alone with
/// `--quiet`.
@Suite struct ShortPlanTests {
    let scratch: Scratch

    /// 1,000 items through three tasks.
    static let workflow = """
        version: 1
        name: thousand
        params:
          greeting: hello
          items: items.txt
        queues:
          io: { maxConcurrent: 4 }
        tasks:
          list: { type: command, argv: [echo, listed], cache: true }
          each:
            type: command
            forEach: { file: "${params.items}" }
            argv: [echo, "${params.greeting}", "${item}"]
            cache: true
            dependsOn: list
          done: { type: noop, dependsOn: each, gather: true, queue: io }

        """

    init() throws {
        scratch = try Scratch()
        try scratch.write("thousand.yaml", Self.workflow)
        try scratch.write("items.txt", (1...1000).map { "item\($0)\n" }.joined())
        try scratch.write("twelve.txt", (1...12).map { "item\($0)\n" }.joined())
    }

    func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        try await Child.runFlowrun(arguments, in: scratch.url)
    }

    func transcript(_ commands: [[String]]) async throws -> String {
        var text = ""
        for arguments in commands {
            let result = try await flowrun(arguments)
            text += CILogTests.transcript(arguments, result, scratch: scratch)
        }
        return text
    }

    func expectGolden(_ name: String, _ text: String) throws {
        #expect(text == (try Golden.expected(for: text, at: CILogTests.golden(name))))
    }

    @Test func theDefaultPlanOfAThousandItemsFitsAScreen() async throws {
        let result = try await flowrun(["validate", "thousand.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).count <= 40)
        try expectGolden(
            "plan-thousand.txt",
            try await transcript([["validate", "thousand.yaml"], ["validate", "thousand.yaml", "--quiet"]]))
    }

    @Test func planNodesAndVerboseListEveryNode() async throws {
        let nodes = try await flowrun(["validate", "thousand.yaml", "--plan", "nodes"])
        let verbose = try await flowrun(["thousand.yaml", "--dry-run", "--verbose"])
        #expect(nodes.status == 0 && verbose.status == 0, "\(nodes.stderr)\(verbose.stderr)")
        #expect(nodes.stdout == verbose.stdout)
        #expect(nodes.stdout.contains("\nwave 2\n  each[item1]     command  default  ← list\n"), "\(nodes.stdout)")
        #expect(nodes.stdout.split(separator: "\n").count > 1000)
    }

    @Test func planOptionsAreChecked() async throws {
        let run = try await flowrun(["thousand.yaml", "--plan", "nodes"])
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("Error: --plan is for --dry-run\n"), "\(run.stderr)")
        let quiet = try await flowrun(["validate", "thousand.yaml", "--plan", "nodes", "--quiet"])
        #expect(quiet.status == 2)
        #expect(quiet.stderr.hasPrefix("Error: --quiet prints no plan; it excludes --plan\n"), "\(quiet.stderr)")
    }

    /// After a run of twelve items, a changed param makes every item run: three of them are named with the
    /// cause, the rest counted.
    @Test func aDryRunNamesAFewNodesPerCause() async throws {
        let first = try await flowrun(["thousand.yaml", "--quiet", "--param", "items=twelve.txt"])
        try #require(first.status == 0, "\(first.stdout)\(first.stderr)")
        try expectGolden(
            "plan-twelve-causes.txt",
            try await transcript([
                ["thousand.yaml", "--dry-run", "--param", "items=twelve.txt", "--param", "greeting=bye"]
            ]))
    }
}
