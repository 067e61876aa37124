import FlowKit

/// The operation of a ``ColorMatrixTask`` (`sepia`): applies the matrix, combined with any matrix still pending
/// on the image.
///
/// With `NodeContext.optimize` and only downsampling resize consumers, it applies nothing and attaches the
/// combined matrix to the image as its pending colour instead, for the resize to apply.
public final class ColorMatrixOperation: ImageOperation, @unchecked Sendable {
    /// The node's matrix.
    public let matrix: ColorMatrix

    /// Creates the operation of one node.
    public init(context: NodeContext, matrix: ColorMatrix) {
        self.matrix = matrix
        super.init(context: context)
    }

    /// The image with the matrix applied, or with it pending when every consumer resizes first.
    public override func transform(_ image: Image) -> Image {
        var image = image
        let combined = image.pendingColor.map { $0.followed(by: matrix) } ?? matrix
        if context.optimize,
            ConsumerAnalysis.mayDeferColor(
                consumers: context.consumers, width: image.originalWidth, height: image.originalHeight)
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
