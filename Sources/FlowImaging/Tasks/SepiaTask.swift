import FlowKit

/// `sepia`: the classic sepia-tone matrix blended with the original by `intensity`.
public struct SepiaTask: ColorMatrixTask {
    public init() {}
    public var name: String { "sepia" }
    public var summary: String { "Tones an image sepia (the classic matrix, blended with the original by intensity)." }
    public var consumes: InputRequirement { .oneOf([.image]) }
    public var provides: ProviderKind? { .image }

    /// The parameters of ``SepiaTask``.
    public struct Parameters: TaskParameters {
        @Parameter(help: "How much sepia: 0 leaves the image unchanged, 1 is full sepia.", range: 0...1)
        public var intensity = 1.0
        public init() {}
    }

    public func colorMatrix(_ parameters: Parameters) -> ColorMatrix {
        .sepia(intensity: parameters.intensity)
    }
}
