import FlowKit

/// `sepia`: the classic sepia-tone matrix blended with the original by `intensity`.
package struct SepiaTask: ColorMatrixTask {
    package init() {}
    package var name: String { "sepia" }
    package var summary: String { "Tones an image sepia (the classic matrix, blended with the original by intensity)." }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }

    /// The parameters of ``SepiaTask``.
    package struct Parameters: TaskParameters {
        @Parameter(help: "How much sepia: 0 leaves the image unchanged, 1 is full sepia.", range: 0...1)
        package var intensity = 1.0
        package init() {}
    }

    package func colorMatrix(_ parameters: Parameters) -> ColorMatrix {
        .sepia(intensity: parameters.intensity)
    }
}
