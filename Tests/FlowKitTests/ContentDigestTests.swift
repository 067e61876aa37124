import Crypto
import Foundation
import Testing

@testable import FlowKit

#if canImport(Glibc)
    import Glibc
#endif

/// What the store records of a file it reads or wrote: its stamp and SHA-256 from one open, and a local source's
/// identity in the very text earlier journals' keys were made of.
@Suite struct ContentDigestTests {
    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test(arguments: [0, 1, 65_535, 65_536, 65_537, 300_000])
    func aFileIsDigestedWholeWhateverItsSizeWithTheStampOfTheFileRead(size: Int) throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/f"
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try #require(ContentDigest.stampedFile(atPath: path))
        let expected = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        #expect(file.sha256 == SHA256.hash(data: bytes))
        #expect(file.stamp == FileStamp(path: path))
        #expect(ContentDigest.ofFile(atPath: path) == expected)
        // Recorded as its bytes, journaled as the same hex as ever.
        #expect(OutputRecord(path: path, stamp: file.stamp, sha256: file.sha256).sha256 == expected)
    }

    @Test func whatIsNotARegularFileHasNoDigest() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(ContentDigest.stampedFile(atPath: folder + "/missing") == nil)
        #expect(ContentDigest.stampedFile(atPath: folder) == nil)
        // A FIFO with no writer would block a read forever: refused at the open, not waited on.
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        #expect(ContentDigest.stampedFile(atPath: folder + "/fifo") == nil)
    }

    @Test func aLocalSourceIsIdentifiedByTheTextEarlierKeysWereMadeOf() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/in.txt"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        var times = [
            timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789),
            timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789),
        ]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(
            SourceIdentity.file(atPath: path, byContent: false).description
                == "file \(path) size 5 mtime 1700000000123456789 inode \(info.st_ino)")
        #expect(
            SourceIdentity.file(atPath: folder + "/gone", byContent: false).description == "file \(folder)/gone missing"
        )
        #expect(
            SourceIdentity.file(atPath: path, byContent: true).description
                == "file \(path) sha256 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
    }

    @Test func aKeyReadsBackFromItsHexAndRefusesAnythingElse() throws {
        let digest = SHA256.hash(data: Array("key".utf8))
        let key = NodeKey(digest)
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        #expect(key.hex == hex)
        #expect(NodeKey(hex: hex) == key)
        #expect(NodeKey(hex: hex.uppercased()) == key)
        #expect(NodeKey(hex: String(hex.dropLast())) == nil)
        #expect(NodeKey(hex: String(hex.dropLast()) + "g") == nil)
        #expect(NodeKey(hex: hex + "0") == nil)
    }
}
