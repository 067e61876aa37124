import FlowImaging
import FlowKit
import Foundation
import Testing

/// Images kept in the store: every field back bit for bit, and decode's blobs tied to the scale it decoded at.
@Suite struct ImageStorageTests {
    @Test func anImageReadsBackWithEveryField() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("images-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let blobs = BlobStore(storeDirectory: folder)
        var image = Fixtures.noise(width: 300, height: 257)
        image.originalWidth = 1200
        image.originalHeight = 1028
        image.decodedScale = 0.25
        image.pendingColor = .sepia(intensity: 0.37)
        image.metadata = ImageMetadata(exif: [0x4D, 0x4D, 0, 42], icc: Array(repeating: 7, count: 600), xmp: nil)
        let reference = try blobs.write(image)
        #expect(reference.facts == "1200x1028")
        let restored = try #require(try blobs.read(reference, as: Image.self) as? Image)
        #expect(restored.width == image.width && restored.height == image.height)
        #expect(restored.pixels == image.pixels)
        #expect(restored.source == image.source)
        #expect(restored.originalWidth == 1200 && restored.originalHeight == 1028)
        #expect(restored.decodedScale == 0.25)
        #expect(restored.pendingColor == image.pendingColor)
        #expect(restored.metadata == image.metadata)
        // An opaque image is stored without its alpha, and comes back opaque.
        var photo = Fixtures.gradient(width: 640, height: 480)
        photo.metadata = image.metadata
        let opaque = try blobs.write(photo)
        #expect(opaque.size < Int64(photo.pixels.count) * 3 / 4 + 4096)
        #expect((try blobs.read(opaque, as: Image.self) as? Image)?.pixels == photo.pixels)
        // An image is not read as bytes, nor bytes as an image.
        #expect(blobs.problem(with: reference, as: DataPayload.self) == "it holds 'image 2', not 'data 1'")
    }

    @Test func decodesBlobIsTiedToTheShrinkOnLoadScaleItsConsumersAskFor() {
        let decode = DecodeTask()
        let thumbnail = [consumer(SepiaTask(), then: [consumer(ResizeTask(), ["scale": .double(0.1)])])]
        let large = [consumer(ResizeTask(), ["scale": .double(0.9)])]
        let small = decode.outputVariant(facts: "4000x3000", consumers: thumbnail, optimize: true)
        #expect(small == "scale 1/4")  // 0.1 × the quality margin 1.5 → the smallest M/8 above 0.15
        #expect(decode.outputVariant(facts: "4000x3000", consumers: large, optimize: true) == "scale 1/1")
        #expect(decode.outputVariant(facts: "4000x3000", consumers: thumbnail, optimize: false) == "scale 1/1")
        #expect(decode.outputVariant(facts: "nonsense", consumers: thumbnail, optimize: true) == "unknown")
        // A task whose output does not depend on its consumers has no variant.
        #expect(SepiaTask().outputVariant(facts: "4000x3000", consumers: large, optimize: true) == nil)
    }
}
