import FlowBasics
import FlowImaging
import FlowImagingBench
import FlowKit
import Foundation
import Testing

/// The optimiser keys on what a consumer's task type declares, never on its name: custom task types declared here
/// get shrink-on-load and the fused colour exactly as the built-in ones do, and lose them without the declaration.
@Suite struct CapabilityTests {
    /// Passes its image on, noting the width it received.
    final class WidthRecorder: ImageOperation, @unchecked Sendable {
        let widths: LockedBox<[Int]>
        init(context: NodeContext, widths: LockedBox<[Int]>) {
            self.widths = widths
            super.init(context: context)
        }
        override func transform(_ image: Image) -> Image {
            widths.withLock { $0.append(image.width) }
            return image
        }
    }

    /// A custom colour task that declares itself pointwise.
    struct Tint: PointwiseColorTask {
        let widths = LockedBox<[Int]>([])
        var name: String { "tint" }
        var summary: String { "Tints (test)." }
        var consumes: InputRequirement { .oneOf([.image]) }
        var provides: ProviderKind? { .image }
        func makeOperation(_ context: NodeContext) -> FlowOperation { WidthRecorder(context: context, widths: widths) }
    }

    /// The same task, declaring nothing.
    struct Opaque: TaskType {
        let widths = LockedBox<[Int]>([])
        var name: String { "opaque" }
        var summary: String { "Does something to every pixel (test)." }
        var consumes: InputRequirement { .oneOf([.image]) }
        var provides: ProviderKind? { .image }
        func makeOperation(_ context: NodeContext) -> FlowOperation { WidthRecorder(context: context, widths: widths) }
    }

    /// A colour matrix task with its own name and parameter.
    struct Warm: ColorMatrixTask {
        struct Parameters: TaskParameters {
            @Parameter(help: "How warm.", range: 0...1) var amount = 0.5
        }
        var name: String { "warm" }
        var summary: String { "Warms (test)." }
        var consumes: InputRequirement { .oneOf([.image]) }
        var provides: ProviderKind? { .image }
        func colorMatrix(_ parameters: Parameters) -> ColorMatrix { .sepia(intensity: parameters.amount) }
    }

    /// A resampling task whose parameter is not called like any of `resize`'s.
    struct Halve: ResamplingTask {
        struct Parameters: TaskParameters {
            @Parameter(help: "How many times to halve.", range: 1...4) var times = 1
        }
        var name: String { "halve" }
        var summary: String { "Halves the size (test)." }
        var consumes: InputRequirement { .oneOf([.image]) }
        var provides: ProviderKind? { .image }
        func resizeSpec(_ parameters: Parameters) -> ResizeSpec? {
            ResizeSpec(size: .scale(pow(0.5, Double(parameters.times))))
        }
        func makeOperation(_ context: NodeContext) -> FlowOperation { NoirOperation(context: context) }
    }

    /// The width a 96 × 64 JPEG is decoded at, for these consumers.
    static func decodedWidth(consumers: [NodeContext.Consumer]) throws -> Int {
        let decode = DecodeOperation(context: context("decode", consumers: consumers, optimize: true))
        let jpeg = try JPEGEncoder.encode(Fixtures.gradient(width: 96, height: 64), quality: 92)
        _ = run(decode, after: BytesOperation(payload: DataPayload(jpeg, source: "")))
        return try #require(decode.providedImage).width
    }

    @Test func aDeclaredPointwiseTaskBetweenDecodeAndResizeKeepsShrinkOnLoad() throws {
        let thumb = consumer(ResizeTask(), ["scale": .double(0.25)])
        #expect(try Self.decodedWidth(consumers: [consumer(Tint(), then: [thumb])]) < 96)
    }

    @Test func aTaskWithoutTheCapabilityBlocksShrinkOnLoad() throws {
        let thumb = consumer(ResizeTask(), ["scale": .double(0.25)])
        #expect(try Self.decodedWidth(consumers: [consumer(Opaque(), then: [thumb])]) == 96)
    }

    @Test func aDeclaredResamplingTaskIsAskedForItsOwnSpec() throws {
        let eighth = try Self.decodedWidth(consumers: [consumer(Halve(), ["times": .int(3)])])
        let half = try Self.decodedWidth(consumers: [consumer(Halve(), ["times": .int(1)])])
        #expect(eighth < half && half < 96, "1/8 → \(eighth) px, 1/2 → \(half) px")
    }

    @Test func aDeclaredColorMatrixTaskDefersItsMatrixIntoADownsamplingResize() throws {
        let image = Fixtures.gradient(width: 40, height: 40)
        let warm = try #require(
            Warm().makeOperation(
                context("warm", consumers: [consumer(ResizeTask(), ["width": .int(10)])], optimize: true))
                as? ColorMatrixOperation)
        _ = run(warm, after: ImageSourceOperation(image))
        #expect(warm.providedImage?.pendingColor == .sepia(intensity: 0.5))
        #expect(warm.providedImage?.pixels == image.pixels)

        // A sepia before it defers through it, as through another sepia.
        let chained = sepiaOperation(
            context(
                "sepia", consumers: [consumer(Warm(), then: [consumer(ResizeTask(), ["width": .int(10)])])],
                optimize: true))
        _ = run(chained, after: ImageSourceOperation(image))
        #expect(chained.providedImage?.pendingColor == .sepia(intensity: 1))

        let beforeOpaque = sepiaOperation(
            context(
                "sepia", consumers: [consumer(Opaque(), then: [consumer(ResizeTask(), ["width": .int(10)])])],
                optimize: true))
        _ = run(beforeOpaque, after: ImageSourceOperation(image))
        #expect(beforeOpaque.providedImage?.pendingColor == nil)
    }

    /// Through the runner: the plan hands each node its consumers' task types.
    @Test func theRunnerLooksThroughADeclaredPointwiseTaskOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capability-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = try JPEGEncoder.encode(Fixtures.gradient(width: 96, height: 64), quality: 92)
        try jpeg.write(to: folder.appendingPathComponent("in.jpg"))
        let tint = Tint()
        let opaque = Opaque()
        let registry = TaskRegistry.standard.adding(tint, opaque)
        for middle in ["tint", "opaque"] {
            let yaml = """
                version: 1
                tasks:
                  read: { type: fetch, url: in.jpg }
                  decode: { type: decode, dependsOn: read }
                  middle: { type: \(middle), dependsOn: decode }
                  thumb: { type: resize, scale: 0.25, dependsOn: middle }
                """
            let result = WorkflowLoader(registry: registry, environment: [:]).plan(
                bytes: Array(yaml.utf8), path: folder.appendingPathComponent("w.yaml").path)
            let plan = try #require(result.plan)
            #expect(await Runner(plan: plan).run().exitCode == 0)
        }
        let reduced = try #require(tint.widths.withLock { $0 }.first)
        #expect(reduced < 96)
        #expect(opaque.widths.withLock { $0 } == [96])
    }
}
