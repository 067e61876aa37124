import Foundation
import Testing

@testable import FlowKit

// MARK: - Test task types

/// Image-like task types for validation tests. The real image tasks live in FlowImaging, which FlowKitTests
/// does not import; these declare the same names, parameters and kinds, and run nothing.
enum TestTasks {
    static let image = ProviderKind("image")

    /// `decode`: data → image.
    struct Decode: TaskType {
        var name: String { "decode" }
        var summary: String { "Decodes JPEG or PNG bytes (test stand-in)." }
        var consumes: InputRequirement { .oneOf([.data]) }
        var provides: ProviderKind? { TestTasks.image }
        func makeOperation(_ context: NodeContext) -> FlowOperation { NoopOperation(context: context) }
    }

    /// `sepia`: image → image, `intensity` 0…1.
    struct Sepia: TaskType {
        var name: String { "sepia" }
        var summary: String { "Sepia tone (test stand-in)." }
        struct Parameters: TaskParameters {
            @Parameter(help: "How strong, 0 to 1.", range: 0...1) var intensity = 1.0
        }
        var consumes: InputRequirement { .oneOf([TestTasks.image]) }
        var provides: ProviderKind? { TestTasks.image }
        func makeOperation(_ context: NodeContext) -> FlowOperation { NoopOperation(context: context) }
    }

    /// `resize`: image → image, one of `scale`, `width`, `height`.
    struct Resize: TaskType {
        var name: String { "resize" }
        var summary: String { "Resizes (test stand-in)." }
        struct Parameters: TaskParameters {
            enum Fit: String, CaseIterable, ParameterValue { case contain, cover, fill }
            @Parameter(help: "Factor applied to both sides.", range: 0.001...100) var scale: Double?
            @Parameter(help: "Target width in pixels.", range: 1...100_000) var width: Int?
            @Parameter(help: "Target height in pixels.", range: 1...100_000) var height: Int?
            @Parameter(help: "How width+height fit.") var fit: Fit?
            static var rules: [ParameterRule<Self>] {
                [
                    .atMostOne(of: \.$scale, \.$width),
                    .atMostOne(of: \.$scale, \.$height),
                    .atLeastOne(of: \.$scale, \.$width, \.$height),
                ]
            }
        }
        var consumes: InputRequirement { .oneOf([TestTasks.image]) }
        var provides: ProviderKind? { TestTasks.image }
        func makeOperation(_ context: NodeContext) -> FlowOperation { NoopOperation(context: context) }
    }

    /// `write`: image or data → file.
    struct Write: TaskType {
        var name: String { "write" }
        var summary: String { "Writes a file (test stand-in)." }
        struct Parameters: TaskParameters {
            @Parameter(help: "Where to write, interpolated.") var path: String
            @Parameter(help: "JPEG quality.", range: 1...100) var quality = 90
        }
        var consumes: InputRequirement { .oneOf([TestTasks.image, .data]) }
        var provides: ProviderKind? { .file }
        func fileAccess(_ parameters: Parameters) -> FileAccess {
            FileAccess(writes: [.init(parameters.path, from: parameters.$path.name)])
        }
        func makeOperation(_ context: NodeContext) -> FlowOperation { NoopOperation(context: context) }
    }

    /// The built-ins plus the stand-ins.
    static let registry = TaskRegistry.builtIn.adding(Decode(), Sepia(), Resize(), Write())

    /// A loader with the stand-in registry and an explicit environment, so results never depend on the
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

        let expectedURL = Fixtures.source.appendingPathComponent("invalid/\(name).expected")
        if ProcessInfo.processInfo.environment["RECORD_GOLDENS"] == "1" {
            try rendered.write(to: expectedURL, atomically: true, encoding: .utf8)
            return
        }
        let bundledExpected = try Fixtures.bundled.appendingPathComponent("invalid/\(name).expected")
        let expected = try String(contentsOf: bundledExpected, encoding: .utf8)
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
