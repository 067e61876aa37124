import FlowKit

/// `rotate`: turns an image clockwise; quarter turns move whole pixels (exact), any other angle resamples
/// bilinearly into the bounding box, filled with `background` where the picture does not reach.
package struct RotateTask: OrientingTask {
    package init() {}
    package var name: String { "rotate" }
    package var summary: String {
        "Rotates an image clockwise: by quarter turns exactly, by any other angle onto a background."
    }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }

    /// The parameters of ``RotateTask``.
    package struct Parameters: TaskParameters {
        @Parameter(help: "Degrees clockwise (negative: anticlockwise); multiples of 90 are exact.", range: -3600...3600)
        package var angle: Double
        @Parameter(
            help: "Any angle but a multiple of 90: the colour of the corners (#rrggbb, #rgb, white, black, "
                + "transparent).")
        package var background = "black"
        package init() {}

        /// The background is a colour.
        package func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics) {
            if !background.contains("${"), RGBAColor(background) == nil {
                diagnostics.error(
                    "rotate's background '\(background)' is not a colour", at: $background.location,
                    hint: "use #rrggbb, #rgb, white, black or transparent")
            }
        }

        /// The angle as whole quarter turns clockwise (0…3), or `nil` when it is not a multiple of 90°.
        var quarterTurns: Int? {
            let turns = angle / 90
            guard turns == turns.rounded() else { return nil }
            return (Int(turns) % 4 + 4) % 4
        }
    }

    package func orientedSize(_ parameters: Parameters, width: Int, height: Int) -> (width: Int, height: Int)? {
        parameters.quarterTurns.map { $0 % 2 == 0 ? (width, height) : (height, width) }
    }
    package func makeOperation(_ context: NodeContext) -> FlowOperation { RotateOperation(context: context) }
}

/// The operation of ``RotateTask``; it stops within 64 rows (16 for other angles) when cancelled.
package final class RotateOperation: ImageOperation, @unchecked Sendable {
    package override func transform(_ image: Image) throws(ImageOperationError) -> Image {
        let parameters = context.parameters(as: RotateTask.Parameters.self)
        let image = image.materialized()
        if let turns = parameters.quarterTurns {
            return image.rotated(quarterTurns: turns, shouldContinue: shouldContinue) ?? image
        }
        guard let background = RGBAColor(parameters.background) else {
            throw ImageOperationError(
                "rotate's background '\(parameters.background)' is not a colour: "
                    + "use #rrggbb, #rgb, white, black or transparent")
        }
        let size = Rotation.boundingSize(width: image.width, height: image.height, degrees: parameters.angle)
        try ImageOperationError.checkSize(width: size.width, height: size.height, of: "the rotated image")
        return Rotation.rotated(
            image, degrees: parameters.angle, background: background, shouldContinue: shouldContinue) ?? image
    }
}
