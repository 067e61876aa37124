import FlowKit

/// `noir`: black and white (Rec. 709 luma) with an S-shaped contrast curve.
public struct NoirTask: PointwiseColorTask {
    public init() {}
    public var name: String { "noir" }
    public var summary: String { "Black and white with raised contrast (Rec. 709 luma, S-curve)." }
    public var consumes: InputRequirement { .oneOf([.image]) }
    public var provides: ProviderKind? { .image }
    public func makeOperation(_ context: NodeContext) -> FlowOperation { NoirOperation(context: context) }
}

/// The operation of ``NoirTask``; always applied at once (its curve does not commute with resizing).
public final class NoirOperation: ImageOperation, @unchecked Sendable {
    public override func transform(_ image: Image) -> Image {
        var image = image.materialized()
        guard let pixels = Noir.applied(to: image.pixels, shouldContinue: shouldContinue) else { return image }
        image.pixels = pixels
        return image
    }
}
