import FlowKit

/// `blur`: a Gaussian blur of standard deviation `sigma` pixels (see ``GaussianBlur`` for the exact definition).
package struct BlurTask: TaskType {
    package init() {}
    package var name: String { "blur" }
    package var summary: String { "Blurs an image with a Gaussian of standard deviation sigma (pixels)." }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }

    /// The parameters of ``BlurTask``.
    package struct Parameters: TaskParameters {
        @Parameter(help: "The Gaussian's standard deviation in pixels, 0.3 to 50.", range: GaussianBlur.sigmaRange)
        package var sigma: Double
        package init() {}
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { BlurOperation(context: context) }
}

/// The operation of ``BlurTask``; it stops within 16 rows when cancelled.
package final class BlurOperation: ImageOperation, @unchecked Sendable {
    package override func transform(_ image: Image) -> Image {
        let sigma = context.parameters(as: BlurTask.Parameters.self).sigma
        let image = image.materialized()
        return GaussianBlur.blurred(image, sigma: sigma, shouldContinue: shouldContinue) ?? image
    }
}
