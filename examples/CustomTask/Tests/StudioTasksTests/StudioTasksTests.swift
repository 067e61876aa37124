import FlowImaging
import FlowKit
import FlowKitTesting
import Foundation
import StudioTasks
import Testing

@Suite struct VignetteTests {
    @Test func leavesTheCentreAndDarkensTheCorners() {
        let image = Image(width: 33, height: 33, filledWith: (200, 100, 50, 255))
        let result = Vignette(strength: 0.5, radius: 0.5).applied(to: image)
        #expect(result[16, 16] == SIMD4(200, 100, 50, 255))
        #expect(result[0, 0] == SIMD4(100, 50, 25, 255))  // the corner: 1 - strength
        #expect(result[0, 16][0] < 200 && result[0, 16][0] > 100)  // an edge midpoint: in between
    }

    @Test func theFactorFallsSmoothlyAndMonotonically() {
        let vignette = Vignette(strength: 0.8, radius: 0.3)
        let factors = stride(from: 0.0, through: 1.0, by: 0.05).map(vignette.factor(atDistance:))
        #expect(zip(factors, factors.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(abs(factors.last! - 0.2) < 1e-9)
    }

    @Test func strengthOutOfRangeIsAValidationError() {
        let result = WorkflowLoader(registry: .studio, environment: [:]).plan(
            bytes: Array(
                """
                version: 1
                tasks:
                  a: { type: fetch, url: x.jpg }
                  b: { type: decode, dependsOn: a }
                  c: { type: vignette, strength: 1.5, dependsOn: b }
                """.utf8), path: "v.yaml")
        #expect(result.plan == nil)
        #expect(
            result.diagnostics.all.map { DiagnosticRenderer().headline($0) } == [
                "v.yaml:5:34: error: parameter 'strength' of task 'c' (vignette) must be between 0 and 1, found 1.5"
            ])
    }
}

@Suite struct ChecksumTests {
    @Test func crc32OfTheStandardCheckString() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func checksumAfterAnImageIsRejectedWithAHint() {
        let result = WorkflowLoader(registry: .studio, environment: [:]).plan(
            bytes: Array(
                """
                version: 1
                tasks:
                  a: { type: fetch, url: x.jpg }
                  b: { type: decode, dependsOn: a }
                  c: { type: checksum, dependsOn: b }
                """.utf8), path: "c.yaml")
        #expect(result.plan == nil)
        let diagnostic = result.diagnostics.all.first
        #expect(diagnostic?.message == "task 'c' (checksum) needs a data; 'b' (decode) provides image")
    }
}

@Suite struct WorkflowTests {
    @Test func theExampleWorkflowRunsEndToEnd() async throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("studio-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let loader = WorkflowLoader(registry: .studio, paramOverrides: [("outDir", out.path)])
        let result = loader.plan(path: package.appendingPathComponent("workflows/vignettes.yaml").path)
        let plan = try #require(
            result.plan, "\(DiagnosticRenderer(sources: result.sources).render(result.diagnostics))")
        let report = await Runner(plan: plan).run()
        #expect(report.exitCode == 0, "\(report.nodes.compactMap(\.cause))")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        let photos = report.nodes.filter { $0.task == "read" }.count
        #expect(photos >= 3)
        #expect(files.filter { $0.hasPrefix("vignette-") && $0.hasSuffix(".jpg") }.count == photos)
        #expect(files.filter { $0.hasSuffix(".crc32.txt") }.count == photos)
        let manifest = try String(
            contentsOf: out.appendingPathComponent(files.first { $0.hasSuffix(".crc32.txt") }!), encoding: .utf8)
        #expect(manifest.hasPrefix("crc32 "))
    }
}
