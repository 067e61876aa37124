import FlowKit
import Foundation
import TestSupport
import Testing

@testable import FlowImaging

/// Previews for `--html`: thumbnails made from the image in memory, and `write` recording them only when asked.
@Suite struct ImagePreviewTests {
    @Test(arguments: [(640, 480, 160, 120), (300, 900, 53, 160), (100, 60, 100, 60), (5000, 1, 160, 1)])
    func aThumbnailFitsTheBoxKeepsTheAspectAndIsNeverEnlarged(
        width: Int, height: Int, thumbWidth: Int, thumbHeight: Int
    ) {
        let thumbnail = ImagePreview.thumbnail(of: Fixtures.gradient(width: width, height: height), maxSide: 160)
        #expect(thumbnail.width == thumbWidth && thumbnail.height == thumbHeight)
    }

    @Test func eachThumbnailPixelAveragesItsFootprint() {
        let image = Fixtures.quadrants(width: 640, height: 480)
        let thumbnail = ImagePreview.thumbnail(of: image, maxSide: 160)
        // Well inside each quadrant the colour is the quadrant's.
        for (index, point) in [(20, 20), (140, 20), (20, 100), (140, 100)].enumerated() {
            #expect(thumbnail[point.0, point.1] == Fixtures.quadrantColors[index])
        }
        // Noise averages towards its mean (nine samples: a third of the spread) rather than keeping one sample.
        let source = Fixtures.noise(width: 640, height: 640)
        let noise = ImagePreview.thumbnail(of: source, maxSide: 160)
        #expect(Self.spread(noise) < Self.spread(source) * 0.5, "\(Self.spread(noise)) vs \(Self.spread(source))")
    }

    /// The standard deviation of the red channel.
    static func spread(_ image: Image) -> Double {
        let reds = stride(from: 0, to: image.pixels.count, by: 4).map { Double(image.pixels[$0]) }
        let mean = reds.reduce(0, +) / Double(reds.count)
        return (reds.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(reds.count)).squareRoot()
    }

    @Test func aPendingColourIsApplied() throws {
        var image = Image(width: 320, height: 320, filledWith: (200, 200, 200, 255))
        image.pendingColor = .sepia(intensity: 1)
        let data = try #require(ImagePreview.jpeg(of: image))
        let decoded = try ImageDecoder.decode(data, source: "")
        let pixel = decoded[80, 80]
        #expect(decoded.width == 128 && pixel[0] > pixel[2] + 40, "sepia makes red exceed blue: \(pixel)")
    }

    @Test func writeRecordsItsFileAndAPreviewOnlyWhenTheRunAsks() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let image = Fixtures.gradient(width: 400, height: 200)
        var asking = context("write", ["path": .string("a.jpg")], directory: folder)
        asking.previews = true
        let recorded = WriteOperation(context: asking)
        _ = run(recorded, after: ImageSourceOperation(image))
        let artifact = try #require(recorded.artifact)
        #expect(artifact.path == URL(fileURLWithPath: folder + "/a.jpg").standardizedFileURL.path)
        let preview = try ImageDecoder.decode(try #require(artifact.preview), source: "")
        #expect(preview.width == 128 && preview.height == 64)

        let silent = WriteOperation(context: context("write", ["path": .string("b.jpg")], directory: folder))
        _ = run(silent, after: ImageSourceOperation(image))
        #expect(silent.artifact == nil)
    }

    @Test func aFailedWriteRecordsNothing() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        try Data().write(to: URL(fileURLWithPath: folder + "/file"))
        var asking = context("write", ["path": .string("file/inside.jpg")], directory: folder)
        asking.previews = true
        let operation = WriteOperation(context: asking)
        let outcome = run(operation, after: ImageSourceOperation(Fixtures.gradient(width: 20, height: 20)))
        #expect(failureMessage(outcome) != nil)
        #expect(operation.artifact == nil)
    }
}
