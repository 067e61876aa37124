import FlowImaging
import FlowImagingBench
import FlowKit
import Foundation
import Testing

/// The image operations run as the runner runs them: a stub upstream, dependencies, an `OperationQueue`.
@Suite struct OperationTests {
    static func jpeg(width: Int = 96, height: Int = 64) throws -> Data {
        try JPEGEncoder.encode(Fixtures.gradient(width: width, height: height), quality: 92)
    }

    @Test func decodeProvidesAnImage() throws {
        let decode = DecodeOperation(context: context("decode"))
        let outcome = run(decode, after: BytesOperation(payload: DataPayload(try Self.jpeg(), source: "a.jpg")))
        guard case .success? = outcome else {
            Issue.record("decode failed: \(String(describing: outcome))")
            return
        }
        let image = try #require(decode.providedImage)
        #expect(image.width == 96 && image.height == 64 && image.source == "a.jpg")
    }

    @Test func decodeOfGarbageFailsWithTheSource() {
        let decode = DecodeOperation(context: context("decode"))
        let outcome = run(decode, after: BytesOperation(payload: DataPayload(Data("hello".utf8), source: "x.jpg")))
        let message = failureMessage(outcome)
        #expect(message?.contains("'x.jpg'") == true && message?.contains("not an image flowrun reads") == true)
        #expect(decode.providedImage == nil)
    }

    @Test func shrinkOnLoadOnlyWhenEveryPathDownsamples() throws {
        let thumb = consumer(ResizeTask(), ["scale": .double(0.25)])
        let optimised = DecodeOperation(
            context: context(
                "decode", consumers: [consumer(SepiaTask(), then: [thumb])],
                optimize: true))
        _ = run(optimised, after: BytesOperation(payload: DataPayload(try Self.jpeg(), source: "")))
        let small = try #require(optimised.providedImage)
        // The smallest M/8 scale that keeps `qualityMargin` × the 24 px target (1.5 → 3/8: 36 px).
        let eighths = (0.25 * ConsumerAnalysis.qualityMargin * 8).rounded(.up)
        #expect(small.width == Int(96 * eighths / 8) && small.originalWidth == 96, "got \(small.width)")
        #expect(small.width < 96)

        let mixed = DecodeOperation(
            context: context("decode", consumers: [thumb, consumer(WriteTask())], optimize: true))
        _ = run(mixed, after: BytesOperation(payload: DataPayload(try Self.jpeg(), source: "")))
        #expect(mixed.providedImage?.width == 96, "a write needs the full image")

        let literal = DecodeOperation(context: context("decode", consumers: [thumb], optimize: false))
        _ = run(literal, after: BytesOperation(payload: DataPayload(try Self.jpeg(), source: "")))
        #expect(literal.providedImage?.width == 96, "no optimisation without --optimize")
    }

    @Test func sepiaDefersOnlyBeforeADownsamplingResize() throws {
        let image = Fixtures.gradient(width: 40, height: 40)
        let down = sepiaOperation(
            context(
                "sepia", ["intensity": .double(0.8)],
                consumers: [consumer(ResizeTask(), ["width": .int(10)])], optimize: true))
        _ = run(down, after: ImageSourceOperation(image))
        #expect(down.providedImage?.pendingColor == .sepia(intensity: 0.8))
        #expect(down.providedImage?.pixels == image.pixels)

        let up = sepiaOperation(
            context(
                "sepia", consumers: [consumer(ResizeTask(), ["scale": .double(2)])],
                optimize: true))
        _ = run(up, after: ImageSourceOperation(image))
        #expect(up.providedImage?.pendingColor == nil)

        let written = sepiaOperation(context("sepia", consumers: [consumer(WriteTask())], optimize: true))
        _ = run(written, after: ImageSourceOperation(image))
        #expect(written.providedImage?.pendingColor == nil)
        #expect(written.providedImage?.pixels == ColorMatrix.sepia(intensity: 1).applied(to: image.pixels))
    }

    @Test func noirMaterialisesAPendingSepia() throws {
        var image = Fixtures.gradient(width: 20, height: 20)
        image.pendingColor = .sepia(intensity: 1)
        let noir = NoirOperation(context: context("noir"))
        _ = run(noir, after: ImageSourceOperation(image))
        var expected = ColorMatrix.sepia(intensity: 1).applied(to: image.pixels)
        Noir.apply(to: &expected)
        #expect(noir.providedImage?.pixels == expected)
        #expect(noir.providedImage?.pendingColor == nil)
    }

    /// decode → sepia 0.8 → resize ×0.3 → (image), literal and optimised.
    static func pipeline(_ jpeg: Data, optimize: Bool) throws -> Image {
        let resizeParameters: [String: Value] = ["scale": .double(0.3)]
        let resize = consumer(ResizeTask(), resizeParameters, then: [consumer(WriteTask())])
        let sepia = consumer(SepiaTask(), ["intensity": .double(0.8)], then: [resize])
        let ops: [FlowOperation] = [
            BytesOperation(payload: DataPayload(jpeg, source: "p.jpg")),
            DecodeOperation(context: context("decode", consumers: [sepia], optimize: optimize)),
            sepiaOperation(context("sepia", ["intensity": .double(0.8)], consumers: [resize], optimize: optimize)),
            ResizeOperation(context: context("resize", resizeParameters, optimize: optimize)),
        ]
        runChain(ops)
        return try #require((ops[3] as? ResizeOperation)?.providedImage)
    }

    @Test func optimisedPipelineStaysWithinTwoLevelsOfTheLiteralOne() throws {
        let jpeg = try Self.jpeg(width: 320, height: 240)
        let literal = try Self.pipeline(jpeg, optimize: false)
        let optimised = try Self.pipeline(jpeg, optimize: true)
        #expect(literal.width == 96 && literal.height == 72)
        #expect(optimised.width == 96 && optimised.height == 72)
        #expect(optimised.pendingColor == nil)
        #expect(Fixtures.maxDifference(literal, optimised) <= 2)
    }

    @Test func resizeAfterShrinkOnLoadUsesTheOriginalSize() throws {
        let half = Image(
            width: 50, height: 40, pixels: Fixtures.gradient(width: 50, height: 40).pixels,
            originalSize: (100, 80))
        let resize = ResizeOperation(context: context("resize", ["width": .int(30)]))
        _ = run(resize, after: ImageSourceOperation(half))
        #expect(resize.providedImage?.width == 30 && resize.providedImage?.height == 24)
    }

    @Test func cancelledOperationFinishesCancelled() {
        let sepia = sepiaOperation(context("sepia"))
        sepia.cancel()
        let outcome = run(sepia, after: ImageSourceOperation(Fixtures.gradient(width: 4, height: 4)))
        if case .cancelled? = outcome {} else { Issue.record("expected cancelled, got \(String(describing: outcome))") }
    }
}

/// The optimisations on real photographs (`examples/photos`): close to the literal pipeline everywhere but at
/// a few edges (clipping before vs after averaging; DCT scaling vs Lanczos).
@Suite struct OptimisationFidelityTests {
    static let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples/photos")

    @Test(arguments: ["aitzgorri.jpg", "seeding.jpg", "wine.jpg"])
    func optimisedOutputIsCloseToTheLiteralOne(name: String) throws {
        let file = Self.photos.appendingPathComponent(name).path
        let (literal, optimised) = try ImagingBenchmark.literalAndOptimised(file: file)
        #expect(literal.width == optimised.width && literal.height == optimised.height)
        let diffs = zip(literal.pixels, optimised.pixels).map { abs(Int($0) - Int($1)) }
        let mean = Double(diffs.reduce(0, +)) / Double(diffs.count)
        let withinTwo = Double(diffs.filter { $0 <= 2 }.count) / Double(diffs.count)
        // With shrink-on-load at 1.5 × the target (a 1/2 decode for ×0.3): about 0.4 level on average and 98.6 %
        // of values within 2 levels on these photos; the rest are edges (DCT scaling vs Lanczos) and clipping.
        #expect(mean < 0.5, "mean difference \(mean)")
        #expect(withinTwo > 0.98, "share within 2 levels \(withinTwo)")
    }
}
