import Foundation
import Testing

/// The workflows in `workflows/` are documentation: each must validate, and each must do what its comment
/// says when run.
@Suite struct ShippedWorkflowTests {
    static let repository = SchemaTests.repository

    func workflow(_ name: String) -> String { Self.repository.appendingPathComponent("workflows/\(name)").path }

    @Test(arguments: SchemaTests.shippedWorkflows)
    func validates(name: String) throws {
        let result = try Flowrun.run(["validate", workflow(name)])
        #expect(result.status == 0, "\(name): \(result.stderr)")
        #expect(result.stdout.hasSuffix("valid: nothing was fetched, decoded or written\n"))
    }

    @Test func sepiaThumbnailsWritesOneThumbnailPerBundledPhoto() throws {
        let scratch = try Scratch()
        let result = try Flowrun.run([
            workflow("sepia-thumbnails.yaml"), "--param", "outDir=\(scratch.path("out"))", "--state-dir",
            scratch.path("state"),
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let photos = try FileManager.default.contentsOfDirectory(
            atPath: Self.repository.appendingPathComponent("examples/photos").path
        )
        .filter { $0.hasSuffix(".jpg") }.sorted()
        let written = try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted()
        #expect(written == photos)
    }

    /// Each bundled photo (1024 px on its long side) fitted in 800 × 800 and watermarked, plus a 200 × 200 square.
    @Test func webGalleryWritesFittedPhotosAndSquares() throws {
        let scratch = try Scratch()
        let result = try Flowrun.run([
            workflow("web-gallery.yaml"), "--param", "outDir=\(scratch.path("out"))", "--state-dir",
            scratch.path("state"),
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let stems = try FileManager.default.contentsOfDirectory(
            atPath: Self.repository.appendingPathComponent("examples/photos").path
        )
        .filter { $0.hasSuffix(".jpg") }.map { String($0.dropLast(4)) }
        let written = try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted()
        #expect(written == stems.flatMap { ["\($0).jpg", "\($0)-square.jpg"] }.sorted())
        for name in written {
            let size = try #require(
                Self.jpegSize(try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/\(name)")))))
            if name.hasSuffix("-square.jpg") {
                #expect(size.width == 200 && size.height == 200, "\(name): \(size)")
            } else {
                #expect(max(size.width, size.height) == 800 && min(size.width, size.height) >= 400, "\(name): \(size)")
            }
        }
    }

    /// The size in a JPEG's first start-of-frame segment (SOF0 or SOF2).
    static func jpegSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        var i = 2
        while i + 9 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xC0 || marker == 0xC2 {
                return (Int(bytes[i + 7]) << 8 | Int(bytes[i + 8]), Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }

    @Test func diamondWritesBothTones() throws {
        let scratch = try Scratch()
        let result = try Flowrun.run([
            workflow("diamond.yaml"), "--param", "outDir=\(scratch.path("out"))", "--state-dir", scratch.path("state"),
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted() == [
                "noir.jpg", "sepia.jpg",
            ])
    }

    @Test func galleryWritesFiveThumbnailsAndNamesBothMisnamedPhotos() throws {
        let scratch = try Scratch()
        let result = try Flowrun.run([
            workflow("gallery.yaml"), "--param", "outDir=\(scratch.path("out"))", "--state-dir", scratch.path("state"),
            "--report", scratch.path("run.json"), "--verbose",
        ])
        #expect(result.status == 1)
        let written = try FileManager.default.contentsOfDirectory(atPath: scratch.path("out"))
        #expect(written.count == 5)
        #expect(!written.contains { $0.hasPrefix(".") }, "no temporary files left: \(written)")
        let rows = result.stdout.split(separator: "\n").map(String.init)
        // Items of a list file are known by their lines.
        for name in ["sunset-2019.jpg", "Wine.JPG"] {
            #expect(rows.contains { $0.hasPrefix("fetch[\(name)] ") && $0.contains(" failed ") && $0.contains(name) })
            for task in ["decode", "thumb", "save"] {
                #expect(
                    rows.contains {
                        $0.hasPrefix("\(task)[\(name)] ") && $0.contains(" skipped ")
                            && $0.contains("upstream fetch[\(name)] failed")
                    })
            }
        }
        #expect(rows.contains { $0.hasPrefix("index ") && $0.contains(" skipped ") })
    }
}
