import FlowKit

/// `flip`: mirrors an image left to right or top to bottom, exactly (whole pixels move).
package struct FlipTask: OrientingTask {
    package init() {}
    package var name: String { "flip" }
    package var summary: String { "Mirrors an image horizontally (left to right) or vertically (top to bottom)." }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }

    /// Which way a `flip` mirrors.
    package enum Direction: String, Sendable, Hashable, CaseIterable, ParameterValue {
        /// Left becomes right (sharp's `flop`).
        case horizontal
        /// Top becomes bottom (sharp's `flip`).
        case vertical
    }

    /// The parameters of ``FlipTask``.
    package struct Parameters: TaskParameters {
        @Parameter(help: "horizontal (left to right) or vertical (top to bottom).")
        package var direction: Direction
        package init() {}
    }

    package func orientedSize(_ parameters: Parameters, width: Int, height: Int) -> (width: Int, height: Int)? {
        (width, height)
    }
    package func makeOperation(_ context: NodeContext) -> FlowOperation { FlipOperation(context: context) }
}

/// The operation of ``FlipTask``; it stops within 64 rows when cancelled.
package final class FlipOperation: ImageOperation, @unchecked Sendable {
    package override func transform(_ image: Image) -> Image {
        let direction = context.parameters(as: FlipTask.Parameters.self).direction
        let image = image.materialized()
        return image.flipped(horizontal: direction == .horizontal, shouldContinue: shouldContinue) ?? image
    }
}
