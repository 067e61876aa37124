import FlowKit

/// `sepia`: the classic sepia-tone matrix blended with the original by `intensity`.
package struct SepiaTask: TaskType {
    package init() {}
    package var name: String { "sepia" }
    package var summary: String { "Tones an image sepia (the classic matrix, blended with the original by intensity)." }
    package var parameters: [ParameterSpec] {
        [
            ParameterSpec(
                "intensity", .number, default: .double(1.0), range: 0...1,
                summary: "How much sepia: 0 leaves the image unchanged, 1 is full sepia.")
        ]
    }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }
    package func makeOperation(_ context: NodeContext) -> FlowOperation { SepiaOperation(context: context) }
}

/// The operation of ``SepiaTask``.
///
/// With ``NodeContext/optimize`` and only downsampling `resize` consumers, it applies nothing and attaches the
/// matrix as ``Image/pendingColor`` instead (see ``ConsumerAnalysis``).
package final class SepiaOperation: ImageOperation, @unchecked Sendable {
    package override func transform(_ image: Image) -> Image {
        let matrix = ColorMatrix.sepia(intensity: context.parameters.double("intensity") ?? 1)
        var image = image
        let combined = image.pendingColor.map { $0.followed(by: matrix) } ?? matrix
        if context.optimize,
            ConsumerAnalysis.mayDeferColor(
                consumers: context.consumers, width: image.originalWidth,
                height: image.originalHeight)
        {
            image.pendingColor = combined
            return image
        }
        image.pendingColor = nil
        guard let pixels = combined.applied(to: image.pixels, kernel: .best, shouldContinue: shouldContinue) else {
            return image
        }
        image.pixels = pixels
        return image
    }
}
