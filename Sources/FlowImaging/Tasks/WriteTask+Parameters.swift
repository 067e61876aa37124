import FlowKit
import Foundation

extension WriteTask {
    /// The parameters of the `write` task.
    public struct Parameters: TaskParameters {
        @Parameter(help: "The file to write; relative to the workflow's folder; parent folders are created.")
        public var path: String
        @Parameter(help: "jpeg, png or webp; from the path's extension when absent.")
        public var format: ImageFormat?
        @Parameter(help: "JPEG and lossy WebP quality, 1 to 100.", range: 1...100)
        public var quality = 90
        @Parameter(help: "JPEG: write a progressive file (coarse to fine scans) instead of a baseline one.")
        public var progressive = false
        @Parameter(help: "WebP: encode losslessly (alpha is always kept).")
        public var lossless = false
        @Parameter(help: "JPEG: the colour transparent pixels are composited over (#rrggbb, #rgb, white, black).")
        public var background = "#ffffff"
        @Parameter(
            help: "Metadata copied from the decoded file: any of exif, icc, xmp (default none; EXIF "
                + "orientation reset to 1, as decode applied it).")
        public var keep: [String]?
        @Parameter(help: "Whether an existing file may be replaced; when false the node fails instead.")
        public var overwrite = true
        public init() {}

        /// The background is a colour, `keep` names metadata kinds, and an image gets a format it can be told.
        public func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics) {
            if !background.contains("${"), RGBColor(background) == nil {
                diagnostics.error(
                    "write's background '\(background)' is not a colour", at: $background.location,
                    hint: "use #rrggbb, #rgb, white or black")
            }
            let kinds = ImageMetadata.Kind.allCases.map(\.rawValue)
            for kind in keep ?? [] where !kinds.contains(kind) && !kind.contains("${") {
                diagnostics.error(
                    "write cannot keep '\(kind)'", at: $keep.location,
                    hint: "keep takes any of \(kinds.joined(separator: ", "))")
            }
            // Data is written as it is, whatever the extension; only an image needs a format.
            guard input != .data, format == nil else { return }
            // An interpolated path may only be known at run time; check what is literal.
            guard !path.contains("${") || !FilePaths.fileExtension(of: path).contains("}") else { return }
            let ext = FilePaths.fileExtension(of: path)
            if ext.isEmpty {
                diagnostics.error(
                    "write needs a format: path '\(path)' has no extension", at: $path.location,
                    hint: "add `format: jpeg`, `format: png` or `format: webp`, or end the path in .jpg, .png or .webp")
            } else if ImageFormat(fileExtension: ext) == nil {
                diagnostics.error(
                    "write's format from its extension: unknown extension '.\(ext)'", at: $path.location,
                    hint: "use .jpg, .jpeg, .png or .webp, or give `format: jpeg`, `format: png` or `format: webp`")
            }
        }
    }
}
