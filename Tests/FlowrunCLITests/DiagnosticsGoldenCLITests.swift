import Foundation
import Testing

/// The diagnostics goldens of FlowKitTests, checked against the built `flowrun`: every `.expected` file is
/// exactly what `flowrun validate` prints for its fixture, so no golden pins down a message the tool never
/// prints (as one did while the goldens ran against stand-in task types).
@Suite struct DiagnosticsGoldenCLITests {
    /// The fixtures, in FlowKitTests' source folder (the binary reads them in place).
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FlowKitTests/Fixtures")

    /// The command-line arguments a fixture needs, as `DiagnosticsGoldenTests.options` gives them to the loader.
    static let arguments: [String: [String]] = [
        "unknown-param-override": ["--param", "intesity=0.5"],
        "multiple-errors": ["--param", "bse=https://example.org"],
        "unknown-target": ["--target", "sav", "--target", "thumb[7]", "--target", "report[0]"],
    ]

    /// Fixtures whose messages depend on the environment: the loader's tests give them one of their own, and
    /// the binary would see the machine's.
    static let environmentDependent: Set<String> = ["unset-env"]

    static let cases: [String] = {
        let folder = fixtures.appendingPathComponent("invalid")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }
            .filter { !environmentDependent.contains($0) }.sorted()
    }()

    @Test func everyFixtureIsChecked() {
        #expect(Self.cases.count >= 30)
    }

    @Test(arguments: cases)
    func theBinaryPrintsTheGolden(_ name: String) throws {
        let expected = try String(
            contentsOf: Self.fixtures.appendingPathComponent("invalid/\(name).expected"), encoding: .utf8)
        let result = try Flowrun.run(
            ["validate", "invalid/\(name).yaml"] + (Self.arguments[name] ?? []), in: Self.fixtures)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        // The goldens hold the diagnostics; the binary adds its one-line summary after them.
        #expect(result.stderr.hasPrefix(expected), "flowrun printed:\n\(result.stderr)")
        let summary = result.stderr.dropFirst(expected.count)
        #expect(summary.hasSuffix("; nothing was run\n") && summary.dropLast().firstIndex(of: "\n") == nil)
    }
}
