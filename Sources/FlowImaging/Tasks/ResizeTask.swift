import FlowKit

/// `resize`: resamples an image to a scale, a width, a height, or a box with a fit.
package struct ResizeTask: ResamplingTask {
    package init() {}
    package var name: String { "resize" }
    package var summary: String { "Resizes an image (Lanczos3 by default) by scale, width, height or a box." }
    /// 2: resampling on premultiplied alpha, and a deferred colour matrix applied to the rows as they are read.
    package var implementationVersion: String { "2" }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }

    /// The parameters of ``ResizeTask``: one of scale, width or height, or width and height with a fit.
    package struct Parameters: TaskParameters {
        @Parameter(help: "A factor of the original size, e.g. 0.3.", range: 0.0001...64)
        package var scale: Double?
        @Parameter(help: "The width in pixels.", range: 1...65535)
        package var width: Int?
        @Parameter(help: "The height in pixels.", range: 1...65535)
        package var height: Int?
        @Parameter(
            help: "With width and height: contain (inside the box), inside (contain, never enlarging), "
                + "cover (fill and crop), fill (stretch).")
        package var fit = ResizeSpec.Fit.contain
        @Parameter(
            help: "Never make the picture larger: true keeps a smaller picture's size, skip skips the node "
                + "(default true for fit: inside, false otherwise).")
        package var withoutEnlargement: Enlargement?
        @Parameter(
            help: "With fit: cover, which part is kept: centre, an edge or corner (north, southeast, …), "
                + "or the most interesting part (attention, entropy).")
        package var position = CropPosition.centre
        @Parameter(help: "The resampling filter.")
        package var filter = ResampleFilter.lanczos
        package init() {}

        package static var rules: [ParameterRule<Self>] {
            [
                .atLeastOne(of: \.$scale, \.$width, \.$height),
                .atMostOne(of: \.$scale, \.$width),
                .atMostOne(of: \.$scale, \.$height),
                .given(\.$fit, requires: \.$width, \.$height),
                .given(\.$position, requires: \.$width, \.$height),
            ]
        }
        /// A crop position only applies to `fit: cover`, which crops.
        package func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics) {
            if $position.isGiven, fit != .cover {
                diagnostics.error(
                    "resize's position applies only to fit: cover (fit is \(fit.rawValue), which does not crop)",
                    at: $position.location, hint: "add `fit: cover`, or remove `position`")
            }
        }
    }

    package func resizeSpec(_ parameters: Parameters) -> ResizeSpec? { ResizeSpec(parameters) }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { ResizeOperation(context: context) }
}

/// The operation of ``ResizeTask``: two-pass separable resampling computed against the image's original size,
/// applying any pending colour matrix to the rows as it reads them; it stops within a few rows when cancelled.
/// Under `withoutEnlargement: skip` a resize that would enlarge is skipped instead, saying why.
package final class ResizeOperation: ImageOperation, @unchecked Sendable {
    package override func reasonToSkip(_ image: Image) -> String? {
        let parameters = context.parameters(as: ResizeTask.Parameters.self)
        guard parameters.withoutEnlargement == .skips, let spec = ResizeSpec(parameters) else { return nil }
        return spec.enlargement(width: image.originalWidth, height: image.originalHeight)
    }

    package override func transform(_ image: Image) throws(ImageOperationError) -> Image {
        guard let spec = ResizeSpec(context.parameters(as: ResizeTask.Parameters.self)) else {
            return image.materialized()
        }
        let scaled = spec.scaledSize(width: image.originalWidth, height: image.originalHeight)
        try ImageOperationError.checkSize(width: scaled.width, height: scaled.height, of: "the resized image")
        return image.resized(spec, shouldContinue: shouldContinue) ?? image
    }

    package override func outputSize(for image: Image) -> (width: Int, height: Int)? {
        ResizeSpec(context.parameters(as: ResizeTask.Parameters.self))?.scaledSize(
            width: image.originalWidth, height: image.originalHeight)
    }
}
