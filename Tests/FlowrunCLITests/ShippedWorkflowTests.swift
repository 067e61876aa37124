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
            "--report", scratch.path("run.json"),
        ])
        #expect(result.status == 1)
        let written = try FileManager.default.contentsOfDirectory(atPath: scratch.path("out"))
        #expect(written.count == 5)
        #expect(!written.contains { $0.hasPrefix(".") }, "no temporary files left: \(written)")
        let rows = result.stdout.split(separator: "\n").map(String.init)
        for (index, name) in [(5, "sunset-2019.jpg"), (6, "Wine.JPG")] {
            #expect(rows.contains { $0.hasPrefix("fetch[\(index)] ") && $0.contains(" failed ") && $0.contains(name) })
            for task in ["decode", "thumb", "save"] {
                #expect(
                    rows.contains {
                        $0.hasPrefix("\(task)[\(index)] ") && $0.contains(" skipped ")
                            && $0.contains("upstream fetch[\(index)] failed")
                    })
            }
        }
        #expect(rows.contains { $0.hasPrefix("index ") && $0.contains(" skipped ") })
    }
}
