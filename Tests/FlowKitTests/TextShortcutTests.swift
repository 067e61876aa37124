import Foundation
import Testing

@testable import FlowKit

/// The shortcuts that read a path, a URL, a digest or a value's text on its bytes, where the general code would
/// split, bridge to `NSString` or allocate: each says exactly what the general reading says.
@Suite struct TextShortcutTests {
    @Test(arguments: [
        ("a/b.txt", ".", "a/b.txt"),
        ("/abs/b", "/work", "/abs/b"),
        ("b.txt", "/work", "/work/b.txt"),
        ("a//b", ".", "a/b"),
        ("./a", ".", "a"),
        ("a/", ".", "a"),
        ("a/..", ".", "."),
        ("../a", ".", "../a"),
        ("/..", ".", "/"),
        ("/", ".", "/"),
        ("", ".", "."),
        (".", ".", "."),
        ("...", ".", "..."),
        ("a/.b/..c", "/w", "/w/a/.b/..c"),
        ("é/ü.txt", "/w", "/w/é/ü.txt"),
    ])
    func pathsAreNormalisedWhetherOrNotTheyAlreadyAre(path: String, directory: String, expected: String) {
        #expect(FilePaths.normalised(path, in: directory) == expected)
    }

    @Test func globMatchesSortByTheirBytesAsUTF8Does() {
        let names = ["b", "a", "ab", "", "é", "e\u{301}", "Z", "a0", "a/", "\u{10FFFF}", "z"]
        let sorted = names.sorted(by: GlobWalker.precedesByBytes)
        #expect(sorted == names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(!GlobWalker.precedesByBytes("a", "a"))
    }

    @Test func aFetchURLIsClassifiedWhateverItsCaseAndTheSpaceAroundIt() {
        func parsed(_ text: String) -> FetchSource? {
            try? FetchSource.parse(text, directory: "/w") { NodeFailure($0, $1) }.get()
        }
        #expect(parsed("HTTPS://example.com/a") == .http(URL(string: "HTTPS://example.com/a")!))
        #expect(parsed("  http://example.com/a \t") == .http(URL(string: "http://example.com/a")!))
        #expect(parsed("File:///tmp/x") == .file("/tmp/x"))
        #expect(parsed("in/a.txt") == .file("/w/in/a.txt"))
        #expect(parsed("/in/a.txt") == .file("/in/a.txt"))
        #expect(parsed("s3/a.txt") == .file("/w/s3/a.txt"))
        #expect(parsed(" in/a.txt\t") == .file("/w/in/a.txt"))
        #expect(parsed("\u{3000}in/a.txt") == .file("/w/in/a.txt"), "an ideographic space is white space too")
        #expect(parsed("a:b.jpg") == .file("/w/a:b.jpg"))
        #expect(parsed("ftp://example.com/a") == nil)
        #expect(parsed("http") == .file("/w/http"))
        #expect(FetchSource.trimmed(" \t ") == "")
    }

    @Test(arguments: [
        String(repeating: "ab", count: 32),
        String(repeating: "AB", count: 32),
        "\"5d41402abc4b2a76b9719d911017c592-2\"",
        String(repeating: "a", count: 63),
        "",
    ])
    func anOutputsDigestReadsBackAsItWasWritten(digest: String) {
        let record = OutputRecord(path: "/w/out.txt", stamp: FileStamp(size: 1, modified: 2, inode: 3), sha256: digest)
        #expect(record.sha256 == digest)
        var changed = record
        changed.sha256 = "etag"
        #expect(changed.sha256 == "etag")
        #expect(changed != record)
        #expect(OutputRecord(path: "/w/out.txt", stamp: record.stamp, sha256: digest) == record)
    }

    @Test func aValueMayHoldAReferenceOnlyWithADollarAndABrace() {
        #expect(Interpolation.mayReference("out/${item.stem}.txt"))
        #expect(Interpolation.mayReference("$${literal}"))
        #expect(!Interpolation.mayReference("out/$ {item}"))
        #expect(!Interpolation.mayReference("{}$"))
        #expect(!Interpolation.mayReference(""))
    }
}
