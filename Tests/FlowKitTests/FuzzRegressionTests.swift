import Foundation
import Testing

@testable import FlowKit

/// Inputs from fuzzing the loader (Fuzz/, see Fuzz/README.md), kept so their fixes stay fixed.
@Suite struct LoaderFuzzRegressionTests {
    /// Deterministic pseudo-random lowercase ids, all of one length.
    static func ids(_ count: Int, length: Int, seed: UInt64) -> [String] {
        var state = seed
        return (0..<count).map { _ in
            String(
                (0..<length).map { _ -> Character in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8((state >> 33) % 26)))
                })
        }
    }

    /// Tasks with long random ids, each depending on an unknown id: "did you mean" compared every unknown name
    /// with every id over the full edit-distance table, tasks² × length² cells. 800 tasks with 28-letter ids
    /// (68 KB) took 105 s in the fuzzing build. Here 200 tasks × 100 letters (4 × 10⁸ cells): about a minute in
    /// a debug build before the fix (600 × 40 letters measured 76 s), under half a second after.
    @Test func unknownDependenciesAmongManyLongIdsAreReportedQuickly() throws {
        let ids = Self.ids(200, length: 100, seed: 7)
        let unknown = Self.ids(200, length: 100, seed: 8)
        var yaml = "version: 1\ntasks:\n"
        for (id, dependency) in zip(ids, unknown) { yaml += "  \(id): { type: noop, dependsOn: \(dependency) }\n" }
        let start = Date()
        let result = WorkflowLoader(registry: .builtIn, environment: [:]).plan(
            bytes: Array(yaml.utf8), path: "wide.yaml")
        let seconds = Date().timeIntervalSince(start)
        #expect(result.diagnostics.all.filter { $0.message.contains("depends on unknown task") }.count == 200)
        #expect(seconds < 5, "took \(seconds) s")
    }

    @Test func theBoundedDistanceAgreesWithTheFullOne() {
        let words =
            Self.ids(60, length: 6, seed: 3)
            + Self.ids(60, length: 7, seed: 4).map { String($0.prefix(Int.random(in: 1...7))) }
            + ["fetch", "fecth", "decode", "decod", "thumb", "thumbs", "Fetch", "ab", "ba", "a", ""]
        for a in words {
            for b in words {
                let full = Suggestion.editDistance(a, b)
                for limit in 0...3 {
                    let bounded = Suggestion.editDistance(
                        Array(a.unicodeScalars), Array(b.unicodeScalars), limit: limit)
                    #expect(full <= limit ? bounded == full : bounded > limit, "\(a) \(b) limit \(limit)")
                }
            }
        }
    }

    /// Found by libFuzzer (a timeout): a 60 KB, 4,936-line mutation of the workflows yielding thousands of
    /// diagnostics. The renderer split the whole file into lines again for every diagnostic's snippet: 44 s
    /// in the fuzzing build.
    @Test func renderingThousandsOfDiagnosticsIsLinearInTheFileSize() throws {
        let url = try Fixtures.bundled.appendingPathComponent("fuzz/renderer-many-diagnostics.yaml")
        let bytes = try Array(Data(contentsOf: url))
        let result = WorkflowLoader(registry: .builtIn, environment: [:]).plan(bytes: bytes, path: "fuzz.yaml")
        #expect(result.diagnostics.all.count > 1_000)
        let start = Date()
        let text = DiagnosticRenderer(sources: result.sources).render(result.diagnostics)
        let seconds = Date().timeIntervalSince(start)
        #expect(text.contains("fuzz.yaml:"))
        #expect(seconds < 5, "took \(seconds) s")
    }
}
