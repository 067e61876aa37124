import FlowKit

/// `sharpen`: an unsharp mask on each colour channel — `o + amount · (o − blurred)` where the difference reaches
/// `threshold` levels (see ``GaussianBlur/sharpened(_:sigma:amount:threshold:kernel:shouldContinue:)``).
///
/// This is the classic definition (Pillow's `UnsharpMask` and ImageMagick's `-unsharp`, with `amount` a factor
/// rather than a percentage). vips and sharp sharpen the L* of CIELAB instead, with separate gains below and above
/// the threshold (`m1`, `m2`, `x1`); here one gain applies above it and nothing below, on sRGB channels.
package struct SharpenTask: TaskType {
    package init() {}
    package var name: String { "sharpen" }
    package var summary: String { "Sharpens an image (unsharp mask: sigma, amount, threshold)." }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }

    /// The parameters of ``SharpenTask``.
    package struct Parameters: TaskParameters {
        @Parameter(
            help: "The blur's standard deviation in pixels, 0.3 to 50: the size of the detail sharpened.",
            range: GaussianBlur.sigmaRange)
        package var sigma = 1.0
        @Parameter(
            help: "How much of the difference from the blur is added: 1 doubles it (Pillow's 100 %).", range: 0...20)
        package var amount = 1.0
        @Parameter(
            help: "Differences smaller than this many levels (0…255) are left alone, sparing flat areas and noise.",
            range: 0...255)
        package var threshold = 0.0
        package init() {}
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { SharpenOperation(context: context) }
}

/// The operation of ``SharpenTask``; it stops within 16 rows when cancelled.
package final class SharpenOperation: ImageOperation, @unchecked Sendable {
    package override func transform(_ image: Image) -> Image {
        let parameters = context.parameters(as: SharpenTask.Parameters.self)
        let image = image.materialized()
        return GaussianBlur.sharpened(
            image, sigma: parameters.sigma, amount: parameters.amount, threshold: parameters.threshold,
            shouldContinue: shouldContinue) ?? image
    }
}
