import FlowImaging
import FlowKit

/// `vignette`: darkens an image towards its corners, like an old lens.
///
/// An image task in a few lines: the descriptor declares the parameters once (with ranges the validator checks
/// before anything runs) and the kinds (image in, image out); the operation reads them typed and subclasses
/// FlowImaging's `ImageOperation`, which reads the input image, checks cancellation and provides the output.
///
/// It declares `PointwiseColorTask`: each pixel's new colour depends on that pixel alone (and its position), and
/// the size is kept, so a `decode` before it still decodes at a reduced scale when a `resize` downsamples after it.
public struct VignetteTask: PointwiseColorTask {
    public init() {}
    public var name: String { "vignette" }
    public var summary: String { "Darkens the image towards its corners." }

    /// The parameters of ``VignetteTask``.
    public struct Parameters: TaskParameters {
        @Parameter(help: "How dark the corners get: 0 leaves the image alone, 1 makes them black.", range: 0...1)
        public var strength = 0.6
        @Parameter(help: "Where the darkening starts, as a fraction of the half-diagonal.", range: 0...1.5)
        public var radius = 0.5
        public init() {}
    }

    public var consumes: InputRequirement { .oneOf([.image]) }
    public var provides: ProviderKind? { .image }
    public func makeOperation(_ context: NodeContext) -> FlowOperation { VignetteOperation(context: context) }
}

/// The operation of ``VignetteTask``.
public final class VignetteOperation: ImageOperation, @unchecked Sendable {
    public override func transform(_ image: Image) -> Image {
        let parameters = context.parameters(as: VignetteTask.Parameters.self)
        return Vignette(strength: parameters.strength, radius: parameters.radius).applied(to: image.materialized())
    }
}

/// The vignette itself: each pixel's colour is scaled by a factor that falls smoothly from 1 inside
/// `radius` to `1 - strength` at the corners.
public struct Vignette: Sendable {
    public var strength: Double
    public var radius: Double

    public init(strength: Double, radius: Double) {
        self.strength = strength
        self.radius = radius
    }

    /// The factor at a distance from the centre, as a fraction of the half-diagonal (0 centre, 1 corner).
    public func factor(atDistance distance: Double) -> Double {
        guard distance > radius else { return 1 }
        let t = min((distance - radius) / max(1 - radius, 1e-6), 1)
        let smooth = t * t * (3 - 2 * t)
        return 1 - strength * smooth
    }

    public func applied(to image: Image) -> Image {
        var output = image
        let centerX = Double(image.width - 1) / 2
        let centerY = Double(image.height - 1) / 2
        let halfDiagonal = max((centerX * centerX + centerY * centerY).squareRoot(), 1)
        output.pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<image.height {
                let dy = Double(y) - centerY
                for x in 0..<image.width {
                    let dx = Double(x) - centerX
                    let scale = factor(atDistance: (dx * dx + dy * dy).squareRoot() / halfDiagonal)
                    if scale == 1 { continue }
                    let offset = (y * image.width + x) * 4
                    for channel in 0..<3 {
                        pixels[offset + channel] = UInt8((Double(pixels[offset + channel]) * scale).rounded())
                    }
                }
            }
        }
        return output
    }
}
