import Foundation
import Testing

/// `write`'s codec knobs through the binary: `effort` for WebP and AVIF, `chroma` and `lossless` for AVIF, each
/// refused where it does nothing.
@Suite struct EncoderKnobCLITests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        _ = try scratch.write("in.jpg", Fixtures.photo("friends"))
    }

    @Test func eachKnobIsRefusedWhereItDoesNothing() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: in.jpg }
              decode: { type: decode, dependsOn: read }
              webp: { type: write, path: out/a.webp, effort: 7, chroma: 444, dependsOn: decode }
              avif: { type: write, path: out/a.avif, lossless: true, quality: 80, dependsOn: decode }
              jpeg: { type: write, path: out/a.jpg, effort: 3, dependsOn: decode }

            """)
        let result = try await Child.runFlowrun(["validate", "flow.yaml"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                flow.yaml:5:50: error: write's effort 7 is past WebP's range
                 5 |   webp: { type: write, path: out/a.webp, effort: 7, chroma: 444, dependsOn: decode }
                   |                                                  ^
                    hint: WebP's effort is 0 (fastest) to 6 (smallest); AVIF's goes to 9
                flow.yaml:5:61: error: write's 'chroma' does not apply to WebP
                 5 |   webp: { type: write, path: out/a.webp, effort: 7, chroma: 444, dependsOn: decode }
                   |                                                             ^
                    hint: 'chroma' applies to lossy AVIF only; remove it
                flow.yaml:6:67: error: write's 'quality' does not apply to AVIF
                 6 |   avif: { type: write, path: out/a.avif, lossless: true, quality: 80, dependsOn: decode }
                   |                                                                   ^
                    hint: 'quality' applies to JPEG, lossy WebP and lossy AVIF only; remove it
                flow.yaml:7:49: error: write's 'effort' does not apply to JPEG
                 7 |   jpeg: { type: write, path: out/a.jpg, effort: 3, dependsOn: decode }
                   |                                                 ^
                    hint: 'effort' applies to WebP and AVIF only; remove it
                4 errors in flow.yaml; nothing was run

                """, "\(result.stderr)")
    }

    /// The knobs change the key: a new effort writes the file again, the rerun finds it cached.
    @Test func theKnobsWriteFilesAndAreInTheKey() async throws {
        func workflow(effort: Int) -> String {
            """
            version: 1
            tasks:
              read: { type: fetch, url: in.jpg }
              decode: { type: decode, dependsOn: read }
              small: { type: resize, width: 120, dependsOn: decode }
              webp: { type: write, path: out/a.webp, effort: \(effort), dependsOn: small }
              avif: { type: write, path: out/a.avif, effort: \(effort), chroma: 444, dependsOn: small }
              exact: { type: write, path: out/b.avif, lossless: true, dependsOn: small }

            """
        }
        try scratch.write("flow.yaml", workflow(effort: 0))
        let first = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        try scratch.write("flow.yaml", workflow(effort: 6))
        let second = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(second.stdout.hasPrefix("6 nodes: 5 succeeded, 1 cached in "), "\(second.stdout)")
        let third = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(third.stdout.hasPrefix("6 nodes: 6 cached in "), "\(third.stdout)")
    }
}
