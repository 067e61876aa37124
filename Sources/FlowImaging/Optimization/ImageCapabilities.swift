import FlowKit

/// A task type that computes each output pixel from the input pixel at the same place alone (its colour, and at
/// most its position relative to the whole picture, as a vignette does), and keeps the size: it does not care at
/// which resolution the picture was decoded.
///
/// The declaration is what the optimiser keys on, not the type's name: shrink-on-load
/// looks through such a task to the resize behind it, since decoding fewer pixels changes nothing it does.
///
/// ```swift
/// public struct InvertTask: PointwiseColorTask {
///     public init() {}
///     public var name: String { "invert" }
///     public var summary: String { "Inverts every colour." }
///     public var consumes: InputRequirement { .oneOf([.image]) }
///     public var provides: ProviderKind? { .image }
///     public func makeOperation(_ context: NodeContext) -> FlowOperation { InvertOperation(context: context) }
/// }
///
/// public final class InvertOperation: ImageOperation, @unchecked Sendable {
///     public override func transform(_ image: Image) -> Image {
///         var image = image.materialized()
///         image.pixels = image.pixels.map { 255 - $0 }
///         return image
///     }
/// }
/// ```
public protocol PointwiseColorTask: TaskType {}

/// A pointwise colour task whose change is a ``ColorMatrix``: its operation is a ``ColorMatrixOperation``, which
/// leaves the matrix pending on the image for a downsampling resize to apply to the rows it reads (the same
/// pixels, without a full-size pass), when the optimiser allows (only downsampling resizes read it).
///
/// ## Implementation requirements
///
/// Implement ``colorMatrix(_:)``; the default ``makeOperation(_:)`` runs it.
public protocol ColorMatrixTask: PointwiseColorTask {
    /// The matrix one node applies, from its parameters.
    func colorMatrix(_ parameters: Parameters) -> ColorMatrix
}

extension ColorMatrixTask {
    /// An operation that applies the task's colour matrix to its input image.
    public func makeOperation(_ context: NodeContext) -> FlowOperation {
        ColorMatrixOperation(context: context, matrix: colorMatrix(context.parameters(as: Parameters.self)))
    }
}

/// A task type that resamples its image as a ``ResizeSpec`` says, computing the target from the image's original
/// size (``Image/originalWidth``), so shrink-on-load may decode fewer pixels for it.
public protocol ResamplingTask: TaskType {
    /// What one node asks for; `nil` when its parameters name no size.
    func resizeSpec(_ parameters: Parameters) -> ResizeSpec?
}

extension ResamplingTask {
    /// ``resizeSpec(_:)`` of a node's parameters as the plan holds them.
    public func resizeSpec(_ values: ParameterValues) -> ResizeSpec? {
        Parameters(complete: values).flatMap(resizeSpec)
    }
}

/// A task type that only changes the picture's orientation — a flip or a quarter turn — moving whole pixels, so
/// it may run on an image shrunk on load: shrink-on-load looks through it to the resize behind it, with the
/// picture's width and height swapped where it turns the picture.
///
/// Its operation must carry ``Image/originalWidth`` and ``Image/originalHeight`` over (swapped by a quarter turn),
/// so the resize behind it still computes its target from the full-size picture. (Where a side is not a multiple of
/// the decode scale, the last decoded pixel covers part of one; a flip or turn moves that pixel to the other edge, so
/// the resize places the picture up to a fraction of a decoded pixel off: well within shrink-on-load's margin.)
public protocol OrientingTask: TaskType {
    /// The size of the result for a `width` × `height` picture, or `nil` when these parameters do more than
    /// reorient it (a rotation by 30°).
    func orientedSize(_ parameters: Parameters, width: Int, height: Int) -> (width: Int, height: Int)?
}

extension OrientingTask {
    /// ``orientedSize(_:width:height:)`` of a node's parameters as the plan holds them.
    public func orientedSize(_ values: ParameterValues, width: Int, height: Int) -> (width: Int, height: Int)? {
        Parameters(complete: values).flatMap { orientedSize($0, width: width, height: height) }
    }
}
