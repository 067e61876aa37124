import FlowKit

/// `noir`: black and white (Rec. 709 luma) with an S-shaped contrast curve.
package struct NoirTask: PointwiseColorTask {
    package init() {}
    package var name: String { "noir" }
    package var summary: String { "Black and white with raised contrast (Rec. 709 luma, S-curve)." }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }
    package func makeOperation(_ context: NodeContext) -> FlowOperation { NoirOperation(context: context) }
}

/// The operation of ``NoirTask``; always applied at once (its curve does not commute with resizing).
package final class NoirOperation: ImageOperation, @unchecked Sendable {
    package override func transform(_ image: Image) -> Image {
        var image = image.materialized()
        guard let pixels = Noir.applied(to: image.pixels, shouldContinue: shouldContinue) else { return image }
        image.pixels = pixels
        return image
    }
}
