import FlowKit

/// `resize`: resamples an image to a scale, a width, a height, or a box with a fit.
package struct ResizeTask: TaskType {
    package init() {}
    package var name: String { "resize" }
    package var summary: String { "Resizes an image (Lanczos3 by default) by scale, width, height or a box." }
    package var parameters: [ParameterSpec] {
        [
            ParameterSpec("scale", .number, range: 0.0001...64, summary: "A factor of the original size, e.g. 0.3."),
            ParameterSpec("width", .integer, range: 1...65535, summary: "The width in pixels."),
            ParameterSpec("height", .integer, range: 1...65535, summary: "The height in pixels."),
            ParameterSpec(
                "fit", .oneOf(ResizeSpec.Fit.allCases.map(\.rawValue)), default: .string("contain"),
                summary: "With width and height: contain (inside the box), cover (fill and crop), fill (stretch)."),
            ParameterSpec(
                "filter", .oneOf(["lanczos", "bilinear", "nearest"]), default: .string("lanczos"),
                summary: "The resampling filter."),
        ]
    }
    /// 2: resampling on premultiplied alpha, and a deferred colour matrix applied to the rows as they are read.
    package var implementationVersion: String { "2" }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }

    package func validate(_ parameters: ParameterValues, into diagnostics: inout Diagnostics) {
        let given = ["scale", "width", "height"].filter { parameters[$0] != nil }
        let anyLocation =
            (given + ["fit", "filter"]).lazy.compactMap { parameters.location(of: $0) }.first ?? parameters.taskLocation
        if given.isEmpty {
            diagnostics.error(
                "resize needs one of scale, width, height", at: anyLocation,
                hint: "e.g. `scale: 0.5`, `width: 800`, or `width: 800` with `height: 600`")
        } else if given.contains("scale"), given.count > 1 {
            let other = given.first { $0 != "scale" } ?? "width"
            diagnostics.error("resize takes scale or \(other), not both", at: parameters.location(of: other))
        } else if parameters.isGiven("fit"), given != ["width", "height"] {
            diagnostics.error("resize's fit needs both width and height", at: parameters.location(of: "fit"))
        }
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { ResizeOperation(context: context) }
}

/// The operation of ``ResizeTask``: two-pass separable resampling computed against the image's original size,
/// applying any pending colour matrix to the rows as it reads them; it stops within a few rows when cancelled.
package final class ResizeOperation: ImageOperation, @unchecked Sendable {
    package override func transform(_ image: Image) -> Image {
        guard let spec = ResizeSpec(parameters: context.parameters) else { return image.materialized() }
        return image.resized(spec, shouldContinue: shouldContinue) ?? image
    }
}
