import FlowImaging
import Foundation
import TestSupport
import Testing

@testable import FlowKit

// MARK: - The registry

/// Loading helpers over the registry the `flowrun` binary uses — FlowKit's built-ins plus FlowImaging's image
/// tasks — so every message a test pins down is one the real tool prints.
enum TestTasks {
    /// The real registry: `noop`, `sleep`, `command`, `fetch`, `decode`, `sepia`, `noir`, `resize`, `write`.
    static let registry = TaskRegistry.standard

    /// A loader with the real registry and an explicit environment, so results never depend on the
    /// machine running the tests.
    static func loader(
        params: [(name: String, value: String)] = [], environment: [String: String] = [:],
        limits: YAMLDocument.Limits = .init()
    ) -> WorkflowLoader {
        WorkflowLoader(registry: registry, paramOverrides: params, environment: environment, limits: limits)
    }

    /// Loads YAML text under a made-up path.
    static func load(
        _ yaml: String, path: String = "test.yaml", params: [(name: String, value: String)] = [],
        environment: [String: String] = [:]
    ) -> WorkflowLoader.LoadResult {
        loader(params: params, environment: environment).plan(bytes: Array(yaml.utf8), path: path)
    }

    /// Renders a result's diagnostics with snippets.
    static func render(_ result: WorkflowLoader.LoadResult) -> String {
        DiagnosticRenderer(sources: result.sources, showsSnippets: true).render(result.diagnostics)
    }
}

// MARK: - Fixtures

/// Where the fixtures are: the copy in the test bundle to read, the source folder to record into.
enum Fixtures {
    static var bundled: URL {
        get throws {
            try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        }
    }

    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The names of the invalid fixtures, without extension, sorted.
    static let invalidCases: [String] = {
        guard
            let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil)?.appendingPathComponent(
                "invalid"),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return names.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }()
}

// MARK: - Golden tests

/// One fixture per kind of mistake; the rendered diagnostics must match `<case>.expected` exactly.
/// `RECORD_GOLDENS=1 swift test --filter DiagnosticsGolden` rewrites the `.expected` files in the source tree.
@Suite struct DiagnosticsGoldenTests {
    /// What a fixture needs besides its text: `--param` overrides and the environment.
    static let options:
        [String: (params: [(name: String, value: String)], environment: [String: String], targets: [String])] = [
            "unknown-param-override": (params: [("intesity", "0.5")], environment: [:], targets: []),
            "unset-env": (params: [], environment: ["API_TOKN": "secret", "HOME": "/home/user"], targets: []),
            "multiple-errors": (params: [("bse", "https://example.org")], environment: [:], targets: []),
            "unknown-target": (params: [], environment: [:], targets: ["sav", "thumb[7]", "report[0]"]),
        ]

    @Test func thereIsOneFixturePerKindOfMistake() {
        #expect(Fixtures.invalidCases.count >= 30)
    }

    @Test(arguments: Fixtures.invalidCases)
    func rendersExactly(_ name: String) throws {
        let fixture = try Fixtures.bundled.appendingPathComponent("invalid/\(name).yaml")
        let bytes = try [UInt8](Data(contentsOf: fixture))
        let options = Self.options[name] ?? (params: [], environment: [:], targets: [])
        var loader = TestTasks.loader(params: options.params, environment: options.environment)
        loader.targets = options.targets
        let result = loader.plan(bytes: bytes, path: "invalid/\(name).yaml")

        #expect(result.plan == nil, "an invalid fixture must not plan")
        #expect(result.diagnostics.hasErrors)
        let rendered = TestTasks.render(result)

        let expected = try Golden.expected(
            for: rendered, at: Fixtures.source.appendingPathComponent("invalid/\(name).expected"),
            readFrom: Fixtures.bundled.appendingPathComponent("invalid/\(name).expected"))
        #expect(rendered == expected)
    }

    @Test func multipleErrorsAreAllReportedSortedByPosition() throws {
        let fixture = try Fixtures.bundled.appendingPathComponent("invalid/multiple-errors.yaml")
        let bytes = try [UInt8](Data(contentsOf: fixture))
        let result = TestTasks.loader(params: [("bse", "x")]).plan(bytes: bytes, path: "multiple-errors.yaml")
        let errors = result.diagnostics.sorted.filter { $0.severity == .error }
        #expect(errors.count >= 10)
        let located = errors.compactMap(\.location)
        #expect(located == located.sorted())
        #expect(errors.first?.location == nil, "the --param error has no place in the file and comes first")
    }
}
