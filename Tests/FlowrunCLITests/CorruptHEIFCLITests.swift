import Foundation
import Testing

/// A HEIC or AVIF that libheif cannot open is reported with libheif's own message. The message lives in the libheif
/// context, and was read after the context was freed: random bytes (and under AddressSanitizer a
/// heap-use-after-free) instead of the cause.
@Suite struct CorruptHEIFCLITests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    @Test func libheifsMessageIsReportedIntact() throws {
        // An `ftyp` box saying AVIF, then a `meta` box cut to its header: libheif finds no usable `meta` box.
        for (name, brand) in [("a.avif", "avif"), ("h.heic", "heic")] {
            let ftyp = [0, 0, 0, 24] + Array("ftyp\(brand)".utf8) + [0, 0, 0, 0] + Array("mif1\(brand)".utf8)
            _ = try scratch.write(name, Data(ftyp + [0, 0, 0, 8] + Array("meta".utf8)))
        }
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: [a.avif, h.heic], url: "${item}" }
              decode: { type: decode, dependsOn: read }
            """)
        let result = try Flowrun.run(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 1)
        let errors = result.stdout.split(separator: "\n").filter { $0.contains(": error: ") }.joined(separator: "\n")
        #expect(
            errors == """
                flow.yaml:4:3: error: decode[a.avif] failed: cannot decode 'a.avif': corrupt AVIF (Invalid input: \
                No 'meta' box)
                flow.yaml:4:3: error: decode[h.heic] failed: cannot decode 'h.heic': corrupt HEIC (Invalid input: \
                No 'meta' box)
                """, "\(result.stdout)\(result.stderr)")
    }
}
