import FlowKit
import Foundation

extension WriteTask {
    /// The parameters of the `write` task.
    public struct Parameters: TaskParameters {
        /// The file to write.
        @Parameter(help: "The file to write; relative to the workflow's folder; parent folders are created.")
        public var path: String
        /// The format to write; from the path's extension when `nil`.
        @Parameter(
            help: "jpeg, png, webp or avif; from the path's extension when absent. For data, the format its bytes "
                + "must be.")
        public var format: WritableFormat?
        /// The JPEG, lossy WebP and AVIF quality, 1 to 100.
        @Parameter(help: "JPEG, lossy WebP and AVIF quality, 1 to 100.", range: 1...100)
        public var quality = 90
        /// Whether a JPEG is progressive.
        @Parameter(help: "JPEG: write a progressive file (coarse to fine scans) instead of a baseline one.")
        public var progressive = false
        /// Whether a WebP or an AVIF is lossless.
        @Parameter(help: "WebP and AVIF: encode losslessly (alpha is always kept; an AVIF is then 4:4:4 RGB).")
        public var lossless = false
        /// How hard the WebP or AVIF encoder works for a smaller file.
        @Parameter(
            help: "WebP (0–6, default 4) and AVIF (0–9, default 3): how hard the encoder works for a smaller file "
                + "at the same quality; higher is slower.", range: 0...9)
        public var effort: Int?
        /// An AVIF's chroma subsampling.
        @Parameter(help: "AVIF: chroma subsampling, 420 (default, photos) or 444 (sharp coloured edges).")
        var chroma = AVIFChroma.yuv420
        /// The colour a JPEG's transparent pixels are composited over.
        @Parameter(help: "JPEG: the colour transparent pixels are composited over (#rrggbb, #rgb, white, black).")
        public var background = "#ffffff"
        /// The metadata copied from the decoded file.
        @Parameter(
            help: "Metadata copied from the decoded file: any of exif, icc, xmp (default none; EXIF "
                + "orientation reset to 1, as decode applied it).")
        public var keep: [String]?
        /// The EXIF fields dropped from the kept EXIF.
        @Parameter(
            help: "EXIF fields dropped while the rest of the EXIF is kept (camera, date, lens, exposure): any of "
                + "gps, serial, owner, makernote, thumbnail.")
        public var strip: [String]?
        /// Whether an existing file may be replaced.
        @Parameter(help: "Whether an existing file may be replaced; when false the node fails instead.")
        public var overwrite = true
        /// Creates the parameters with their defaults.
        public init() {}

        /// The path, which may name the item.
        public static var itemParameters: [ItemParameter<Self>] {
            [
                .storage(\._path), .storage(\._format), .storage(\._quality), .storage(\._progressive),
                .storage(\._lossless), .storage(\._effort), .storage(\._chroma), .storage(\._background),
                .storage(\._keep), .storage(\._strip),
                .storage(\._overwrite),
            ]
        }

        /// The format an image is encoded in, or data checked against: `format`, else the path's extension.
        var target: ImageFormat? {
            format?.imageFormat ?? ImageFormat(fileExtension: FilePaths.fileExtension(of: path))
        }

        /// The parameters given that do nothing for `format`, with the formats they apply to.
        func inapplicable(to format: ImageFormat) -> [(info: ParameterInfo, appliesTo: String)] {
            var found: [(ParameterInfo, String)] = []
            if $quality.isGiven, format == .png || (lossless && format == .avif) {
                found.append(($quality, "JPEG, lossy WebP and lossy AVIF"))
            }
            if $lossless.isGiven, format != .webp, format != .avif { found.append(($lossless, "WebP and AVIF")) }
            if $effort.isGiven, format != .webp, format != .avif { found.append(($effort, "WebP and AVIF")) }
            if $chroma.isGiven, format != .avif || lossless { found.append(($chroma, "lossy AVIF")) }
            if $progressive.isGiven, format != .jpeg { found.append(($progressive, "JPEG")) }
            if $background.isGiven, format != .jpeg { found.append(($background, "JPEG (it has no transparency)")) }
            return found
        }

        /// The encoding parameters given, which do nothing when `write` passes data through as it is.
        var encodingParameters: [ParameterInfo] {
            [$quality, $progressive, $lossless, $effort, $chroma, $background, $keep, $strip].filter(\.isGiven)
        }

        /// The background is a colour, `keep` and `strip` name what they can, an image gets a format `write` encodes
        /// and only parameters that apply to it, and data gets no encoding parameters.
        public func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics) {
            // Checked only when given (the default is a colour): this runs for every node of a plan.
            if $background.isGiven, !background.contains("${"), RGBColor(background) == nil {
                diagnostics.error(
                    "write's background '\(background)' is not a colour", at: $background.location,
                    hint: "use #rrggbb, #rgb, white or black")
            }
            // An upload keeps the key it is given: no name is decided by the content there.
            if path.hasPrefix("s3://"), OutputHash.isPattern(path) {
                diagnostics.error(
                    "write's '${output.hash}' cannot name an object in a bucket", at: $path.location,
                    hint: "write the object under a fixed key, or write a local file named by its content")
            }
            if let keep {
                let kinds = ImageMetadata.Kind.allCases.map(\.rawValue)
                for kind in keep where !kinds.contains(kind) && !kind.contains("${") {
                    diagnostics.error(
                        "write cannot keep '\(kind)'", at: $keep.location,
                        hint: "keep takes any of \(kinds.joined(separator: ", "))")
                }
            }
            if let strip {
                let fields = ExifField.allCases.map(\.rawValue)
                for field in strip where !fields.contains(field) && !field.contains("${") {
                    diagnostics.error(
                        "write cannot strip '\(field)'", at: $strip.location,
                        hint: "strip takes any of \(fields.joined(separator: ", "))")
                }
            }
            // A `format:` that contradicts the path's image extension would put one format under another's name,
            // as JPEG bytes in `x.webp`: whoever opens the file by its name is misled. The extension is read only
            // where it is used: data written without `format:`, every node of a plain copy, never needs it.
            if let format = format?.imageFormat, case let ext = FilePaths.fileExtension(of: path),
                let named = ImageFormat(fileExtension: ext), named != format
            {
                diagnostics.error(
                    "write's format \(format.displayName) contradicts the path's extension '.\(ext)' "
                        + "(\(named.displayName))", at: $format.location,
                    hint: input == .data
                        ? "end the path in .\(format.rawValue): write does not convert data, it checks the bytes are "
                            + "\(format.displayName)"
                        : "end the path in .\(format.rawValue), or remove `format:` to write \(named.displayName)")
            }
            if input == .data {
                for parameter in encodingParameters {
                    diagnostics.error(
                        "write's '\(parameter.name)' does not apply to data, which is written as it is",
                        at: parameter.location, hint: "to re-encode an image, put a `decode` before this write")
                }
                return
            }
            let writable = WritableFormat.list
            // An interpolated extension is only known at run time (the operation checks it then); a `format:` that
            // is not one is reported by its type.
            let ext = FilePaths.fileExtension(of: path)
            guard format != nil || !(path.contains("${") && ext.contains("}")) && !$format.isGiven else { return }
            guard let target else {
                let problem = ext.isEmpty ? "the path has no extension" : "unknown extension '.\(ext)'"
                diagnostics.error(
                    "write needs a format: \(problem)", at: $path.location,
                    hint: "add `format:` (\(writable)), or end the path in .jpg, .png, .webp or .avif")
                return
            }
            guard target.isWritable else {
                diagnostics.error(
                    "write cannot encode \(target.displayName) (the path's extension is '.\(ext)')", at: $path.location,
                    hint: "flowrun reads \(target.displayName) but writes \(writable)")
                return
            }
            for (parameter, appliesTo) in inapplicable(to: target) {
                diagnostics.error(
                    "write's '\(parameter.name)' does not apply to \(target.displayName)", at: parameter.location,
                    hint: "'\(parameter.name)' applies to \(appliesTo) only; remove it")
            }
            if let effort, target == .webp, effort > 6 {
                diagnostics.error(
                    "write's effort \(effort) is past WebP's range", at: $effort.location,
                    hint: "WebP's effort is 0 (fastest) to 6 (smallest); AVIF's goes to 9")
            }
        }
    }
}
