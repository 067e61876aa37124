import Foundation
import Testing

/// A JPEG cut short — an interrupted copy, a download stopped early — is named as truncated wherever the cut
/// falls: before its frame header TurboJPEG reports neither a size nor an error, which read as "JPEG has no
/// pixels" (a file damaged before it looks the same, so both are named).
@Suite struct CutJPEGCLITests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    @Test func aJPEGCutAnywhereIsNamedTruncated() async throws {
        let wine = try Fixtures.photo("wine")
        for length in [20, 100, 400] { _ = try scratch.write("cut\(length).jpg", wine.prefix(length)) }
        try scratch.write(
            "cut.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: [cut20.jpg, cut100.jpg, cut400.jpg], url: "${item}" }
              decode: { type: decode, dependsOn: read }
            """)
        let result = try await Child.runFlowrun(["cut.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 1)
        let errors = result.stdout.split(separator: "\n").filter { $0.contains(": error: ") }.joined(separator: "\n")
        #expect(
            errors == """
                cut.yaml:4:3: error: decode[cut20.jpg] failed: cannot decode 'cut20.jpg': no JPEG frame header in \
                20 bytes: the file is truncated or damaged
                cut.yaml:4:3: error: decode[cut100.jpg] failed: cannot decode 'cut100.jpg': no JPEG frame header in \
                100 bytes: the file is truncated or damaged
                cut.yaml:4:3: error: decode[cut400.jpg] failed: cannot decode 'cut400.jpg': JPEG data is truncated \
                (400 bytes cannot hold 683×1024 pixels; Huffman coding needs at least 1376)
                """, "\(result.stdout)")
    }
}
