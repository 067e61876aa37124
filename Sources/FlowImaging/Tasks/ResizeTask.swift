import FlowKit

/// `resize`: resamples an image to a scale, a width, a height, or a box with a fit.
public struct ResizeTask: ResamplingTask {
    public init() {}
    public var name: String { "resize" }
    public var summary: String { "Resizes an image (Lanczos3 by default) by scale, width, height or a box." }
    /// 2: resampling on premultiplied alpha, and a deferred colour matrix applied to the rows as they are read.
    public var implementationVersion: String { "2" }
    public var consumes: InputRequirement { .oneOf([.image]) }
    public var provides: ProviderKind? { .image }

    /// The parameters of ``ResizeTask``: one of scale, width or height, or width and height with a fit.
    public struct Parameters: TaskParameters {
        @Parameter(help: "A factor of the original size, e.g. 0.3.", range: 0.0001...64)
        public var scale: Double?
        @Parameter(help: "The width in pixels.", range: 1...65535)
        public var width: Int?
        @Parameter(help: "The height in pixels.", range: 1...65535)
        public var height: Int?
        @Parameter(help: "With width and height: contain (inside the box), cover (fill and crop), fill (stretch).")
        public var fit = ResizeSpec.Fit.contain
        @Parameter(help: "The resampling filter.")
        public var filter = ResampleFilter.lanczos
        public init() {}

        public static var rules: [ParameterRule<Self>] {
            [
                .atLeastOne(of: \.$scale, \.$width, \.$height),
                .atMostOne(of: \.$scale, \.$width),
                .atMostOne(of: \.$scale, \.$height),
                .given(\.$fit, requires: \.$width, \.$height),
            ]
        }
    }

    public func resizeSpec(_ parameters: Parameters) -> ResizeSpec? { ResizeSpec(parameters) }

    public func makeOperation(_ context: NodeContext) -> FlowOperation { ResizeOperation(context: context) }
}

/// The operation of ``ResizeTask``: two-pass separable resampling computed against the image's original size,
/// applying any pending colour matrix to the rows as it reads them; it stops within a few rows when cancelled.
public final class ResizeOperation: ImageOperation, @unchecked Sendable {
    public override func transform(_ image: Image) -> Image {
        guard let spec = ResizeSpec(context.parameters(as: ResizeTask.Parameters.self)) else {
            return image.materialized()
        }
        return image.resized(spec, shouldContinue: shouldContinue) ?? image
    }
}
