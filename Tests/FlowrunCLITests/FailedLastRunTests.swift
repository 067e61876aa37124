import Foundation
import Testing

/// A node whose last attempt failed is reported as such by `validate` and `explain` — "failed last run: CAUSE" —
/// not as one never run; once it succeeds, that is forgotten. Through the built binary.
@Suite struct FailedLastRunTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try Fixtures.writeItems(["alpha", "beta"], in: scratch)
        try scratch.write(
            "check.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              check:
                type: command
                dependsOn: read
                stdin: true
                cache: true
                argv: [sh, -c, 'if grep -q beta; then echo "beta is broken" >&2; exit 3; fi; echo ok']
            """)
    }

    func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        try await Child.runFlowrun(arguments, in: scratch.url)
    }

    @Test func validateAndExplainSayWhatFailedLastRun() async throws {
        let failed = try await flowrun(["check.yaml", "--no-progress", "--quiet"])
        #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
        let validate = try await flowrun(["validate", "check.yaml"])
        #expect(validate.stdout.contains("    check[in/beta.txt]: failed last run: "), "\(validate.stdout)")
        #expect(validate.stdout.contains("beta is broken"), "\(validate.stdout)")
        let explain = try await flowrun(["explain", "check.yaml", "check[in/beta.txt]"])
        #expect(explain.stdout.contains("runs: failed last run: "), "\(explain.stdout)")

        // Fixed: it runs, succeeds, and is no longer said to have failed.
        try scratch.write("in/beta.txt", "item b\n")
        let fixed = try await flowrun(["check.yaml", "--no-progress", "--quiet"])
        #expect(fixed.status == 0, "\(fixed.stdout)\(fixed.stderr)")
        let after = try await flowrun(["validate", "check.yaml"])
        #expect(!after.stdout.contains("failed last run"), "\(after.stdout)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path(".flowrun/check.yaml.failed")))
    }
}
