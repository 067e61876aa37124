import Foundation
import Testing

/// `scripts/check-doc-examples.py`, which CI runs over the real documentation, run over a small made-up module
/// folder: it passes the examples that compile, fails the others at their line in the documentation, compiles
/// them as another package would (no `package` declarations), leaves the examples of non-public declarations
/// alone, and fails symbol links to declarations that are not public.
@Suite struct DocExamplesCheckTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let article = """
        # Guide

        Load with ``WorkflowLoader``, run with ``Runner/run()``.

        ```swift
        let result = WorkflowLoader(registry: .builtIn).plan(path: "w.yaml")
        print(result.diagnostics.hasErrors)
        ```

        ```swift
        let distance = Suggestion.editDistance("a", "b")
        ```

        Names close to a misspelt one come from ``Suggestion``.
        """

    static let source = """
        /// Something public.
        ///
        /// ```swift
        /// let value: Value = .int(3)
        /// print(value.undefinedMember)
        /// ```
        public func something() {}

        /// Something else public.
        ///
        /// ```swift
        /// let location = SourceLocation(path: "w.yaml", line: 1, column: 2)
        /// print(location)
        /// ```
        public func somethingElse() {}

        /// Not public: its example is not checked.
        ///
        /// ```swift
        /// this does not compile
        /// ```
        func hidden() {}
        """

    struct Run {
        var status: Int32
        var output: String
    }

    /// Runs the check over `Sources/FlowKit` holding the given files, against the modules this test was built with.
    func check(_ files: [String: String]) throws -> Run {
        let scratch = try Scratch()
        for (name, text) in files { try scratch.write("Sources/FlowKit/\(name)", text) }
        let (status, output) = try runToEnd(
            "/usr/bin/env",
            [
                "python3", Self.repository.appendingPathComponent("scripts/check-doc-examples.py").path,
                "--skip-build", "--bin-path", Flowrun.binary.deletingLastPathComponent().path, "--sources",
                scratch.path("Sources"),
            ])
        return Run(status: status, output: output)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
    func failsTheExamplesThatDoNotCompileAtTheirLines() async throws {
        let run = try await offPool {
            try check(["FlowKit.docc/Guide.md": Self.article, "Thing.swift": Self.source])
        }
        #expect(run.status == 1, "\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        // The article's blocks compile together; the second names a `package` declaration, which other
        // packages cannot see.
        #expect(
            lines.contains { $0.hasSuffix("FlowKit.docc/Guide.md:11:16: error: cannot find 'Suggestion' in scope") })
        #expect(lines.contains { $0.hasPrefix("FAIL ") && $0.hasSuffix("FlowKit.docc/Guide.md:6") })
        #expect(lines.contains { $0.contains("Thing.swift:5:") && $0.contains("error: value of type 'Value' has no") })
        #expect(lines.contains { $0.hasPrefix("PASS ") && $0.hasSuffix("Thing.swift:12 (1 block)") })
        #expect(!run.output.contains("this does not compile"))
        #expect(lines.contains("1 of 3 documentation examples compile"))
        #expect(lines.contains { $0.hasSuffix("Guide.md:14: error: ``Suggestion`` names no public declaration") })
        #expect(lines.last == "2 of 3 symbol links name public declarations")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
    func passesWhenEveryExampleCompiles() async throws {
        let article = Self.article.replacingOccurrences(of: "Suggestion", with: "SourceLocation")
            .replacingOccurrences(of: ".editDistance(\"a\", \"b\")", with: "(path: \"a\", line: 1, column: 1)")
        let run = try await offPool { try check(["FlowKit.docc/Guide.md": article]) }
        #expect(run.status == 0, "\(run.output)")
        #expect(
            run.output.hasSuffix(
                "1 of 1 documentation examples compile\n3 of 3 symbol links name public declarations\n"))
    }
}
