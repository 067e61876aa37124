import FlowImaging
import FlowImagingBench
import FlowKit
import Foundation
import TestSupport
import Testing

/// `write`: formats, atomic replacement, no temporary file left behind, overwrite, unwritable paths.
@Suite struct WriteTests {
    static func write(
        _ parameters: [String: Value], image: Image = Fixtures.gradient(width: 24, height: 16),
        in folder: String
    ) -> (WriteOperation, FlowOperation.Outcome?) {
        let op = WriteOperation(context: context("write", parameters, directory: folder))
        return (op, run(op, after: ImageSourceOperation(image)))
    }

    static func leftovers(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".flowrun-") }
    }

    @Test(arguments: [("out.jpg", ImageFormat.jpeg), ("out.PNG", .png), ("deep/er/out.jpeg", .jpeg)])
    func writesTheFormatOfTheExtension(name: String, format: ImageFormat) throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let (op, outcome) = Self.write(["path": .string(name)], in: folder)
        guard case .success? = outcome else {
            Issue.record("\(String(describing: outcome))")
            return
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        #expect(ImageFormat.sniff(data) == format)
        #expect(op.providedFile == FileOutput(path: name, byteCount: data.count))
        #expect(try ImageDecoder.decode(data, source: "").width == 24)
        #expect(Self.leftovers(in: folder).isEmpty)
    }

    @Test func explicitFormatWinsAndQualityMatters() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let image = Fixtures.noise(width: 64, height: 64)
        _ = Self.write(
            ["path": .string("a.bin"), "format": .string("jpeg"), "quality": .int(10)], image: image, in: folder)
        _ = Self.write(
            ["path": .string("b.bin"), "format": .string("jpeg"), "quality": .int(95)], image: image, in: folder)
        let low = try Data(contentsOf: URL(fileURLWithPath: folder + "/a.bin"))
        let high = try Data(contentsOf: URL(fileURLWithPath: folder + "/b.bin"))
        #expect(ImageFormat.sniff(low) == .jpeg && low.count < high.count)
    }

    @Test func dataIsWrittenAsIs() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let op = WriteOperation(context: context("write", ["path": .string("raw.dat")], directory: folder))
        let bytes = Data("not an image".utf8)
        _ = run(op, after: BytesOperation(payload: DataPayload(bytes, source: "x")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/raw.dat")) == bytes)
    }

    @Test func replacesAnExistingFileAtomically() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let path = folder + "/same.png"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        let (_, outcome) = Self.write(["path": .string("same.png")], in: folder)
        guard case .success? = outcome else {
            Issue.record("\(String(describing: outcome))")
            return
        }
        let after = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        #expect(before != after, "a new inode was renamed into place, not the old file rewritten")
        #expect(ImageFormat.sniff(try Data(contentsOf: URL(fileURLWithPath: path))) == .png)
    }

    @Test func overwriteFalseRefusesAnExistingFile() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: folder + "/k.jpg"))
        let (_, outcome) = Self.write(["path": .string("k.jpg"), "overwrite": .bool(false)], in: folder)
        #expect(failureMessage(outcome)?.contains("already exists") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/k.jpg")) == Data("keep".utf8))
        #expect(Self.leftovers(in: folder).isEmpty)
        let (_, fresh) = Self.write(["path": .string("new.jpg"), "overwrite": .bool(false)], in: folder)
        if case .success? = fresh {} else { Issue.record("\(String(describing: fresh))") }
    }

    @Test func aFileInPlaceOfAFolderFailsWithTheOSError() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/plain"))
        let (_, outcome) = Self.write(["path": .string("plain/sub/out.jpg")], in: folder)
        let message = try #require(failureMessage(outcome))
        #expect(message.contains("plain/sub/out.jpg") && message.contains("Not a directory"), "\(message)")
        #expect(Self.leftovers(in: folder).isEmpty)
    }

    @Test func anUnwritableFolderFailsWithThePathAndNoTemporaryFile() throws {
        let (_, outcome) = Self.write(["path": .string("/proc/flowrun-test.jpg")], in: ".")
        let message = try #require(failureMessage(outcome))
        #expect(message.contains("/proc/flowrun-test.jpg"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: "/proc/flowrun-test.jpg"))
    }

    @Test func unknownExtensionFailsAtRunTime() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let (_, outcome) = Self.write(["path": .string("x.gif")], in: folder)
        #expect(failureMessage(outcome)?.contains("'.gif'") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func cancelledWriteLeavesNothing() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let op = WriteOperation(context: context("write", ["path": .string("c.jpg")], directory: folder))
        op.cancel()
        let outcome = run(op, after: ImageSourceOperation(Fixtures.gradient(width: 8, height: 8)))
        if case .cancelled? = outcome {} else { Issue.record("\(String(describing: outcome))") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
