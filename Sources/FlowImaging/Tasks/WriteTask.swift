import FlowKit
import Foundation

/// `write`: encodes an image (or passes bytes through) and writes it atomically to `path`.
package struct WriteTask: TaskType {
    package init() {}
    package var name: String { "write" }
    package var summary: String { "Writes an image (JPEG, PNG or WebP) or bytes to a file, atomically." }
    package var parameters: [ParameterSpec] {
        [
            ParameterSpec(
                "path", .string, required: true,
                summary: "The file to write; relative to the workflow's folder; parent folders are created."),
            ParameterSpec(
                "format", .oneOf(ImageFormat.allCases.map(\.rawValue)),
                summary: "jpeg, png or webp; from the path's extension when absent."),
            ParameterSpec(
                "quality", .integer, default: .int(90), range: 1...100,
                summary: "JPEG and lossy WebP quality, 1 to 100."),
            ParameterSpec(
                "progressive", .bool, default: .bool(false),
                summary: "JPEG: write a progressive file (coarse to fine scans) instead of a baseline one."),
            ParameterSpec(
                "lossless", .bool, default: .bool(false), summary: "WebP: encode losslessly (alpha is always kept)."),
            ParameterSpec(
                "background", .string, default: .string("#ffffff"),
                summary: "JPEG: the colour transparent pixels are composited over (#rrggbb, #rgb, white, black)."),
            ParameterSpec(
                "keep", .stringList,
                summary: "Metadata copied from the decoded file: any of exif, icc, xmp (default none; EXIF "
                    + "orientation reset to 1, as decode applied it)."),
            ParameterSpec(
                "overwrite", .bool, default: .bool(true),
                summary: "Whether an existing file may be replaced; when false the node fails instead."),
        ]
    }
    package var consumes: InputRequirement { .oneOf([.image, .data]) }
    package var provides: ProviderKind? { .file }
    /// 2: JPEG composites transparency over `background`; WebP; metadata kept on request.
    /// 3: PNG keeps a profile in an `iCCP` chunk.
    package var implementationVersion: String { "3 " + CodecVersions.description }
    package func outputPath(_ parameters: ParameterValues) -> String? { parameters.string("path") }

    package func validate(_ parameters: ParameterValues, into diagnostics: inout Diagnostics) {
        if let background = parameters.string("background"), !background.contains("${"), RGBColor(background) == nil {
            diagnostics.error(
                "write's background '\(background)' is not a colour", at: parameters.location(of: "background"),
                hint: "use #rrggbb, #rgb, white or black")
        }
        let kinds = ImageMetadata.Kind.allCases.map(\.rawValue)
        for kind in parameters.stringList("keep") ?? [] where !kinds.contains(kind) && !kind.contains("${") {
            diagnostics.error(
                "write cannot keep '\(kind)'", at: parameters.location(of: "keep"),
                hint: "keep takes any of \(kinds.joined(separator: ", "))")
        }
        // Data is written as it is, whatever the extension; only an image needs a format.
        guard parameters.inputKind != .data, parameters.string("format") == nil, let path = parameters.string("path")
        else { return }
        // An interpolated path may only be known at run time; check what is literal.
        guard !path.contains("${") || !(path as NSString).pathExtension.contains("}") else { return }
        let ext = (path as NSString).pathExtension
        if ext.isEmpty {
            diagnostics.error(
                "write needs a format: path '\(path)' has no extension", at: parameters.location(of: "path"),
                hint: "add `format: jpeg`, `format: png` or `format: webp`, or end the path in .jpg, .png or .webp")
        } else if ImageFormat(fileExtension: ext) == nil {
            diagnostics.error(
                "write's format from its extension: unknown extension '.\(ext)'",
                at: parameters.location(of: "path"),
                hint: "use .jpg, .jpeg, .png or .webp, or give `format: jpeg`, `format: png` or `format: webp`")
        }
    }

    package func fileAccess(_ parameters: ParameterValues) -> FileAccess {
        guard let path = parameters.string("path"), !path.isEmpty else { return .none }
        return FileAccess(writes: [.init(path, from: "path")])
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { WriteOperation(context: context) }
}

/// The operation of ``WriteTask``.
package final class WriteOperation: FlowOperation, FileProvider, @unchecked Sendable {
    /// The file written, once finished.
    package var providedFile: FileOutput? { output(as: FileOutput.self) }

    package override func execute() {
        if finishIfCancelled() { return }
        let parameters = context.parameters
        guard let rawPath = parameters.string("path"), !rawPath.isEmpty else {
            return finish(.failure(context.failure(.invalidInput, "write needs a path")))
        }
        let path = context.resolvePath(rawPath)
        let bytes: Data
        var preview: Data?
        if let image = input((any ImageProvider).self)?.providedImage {
            let named = parameters.string("format").flatMap(ImageFormat.init(rawValue:))
            guard let format = named ?? ImageFormat(fileExtension: (path as NSString).pathExtension) else {
                let ext = (path as NSString).pathExtension
                return finish(
                    .failure(
                        context.failure(
                            .invalidInput,
                            "cannot tell the format of '\(rawPath)' from its extension '.\(ext)': "
                                + "give `format: jpeg`, `format: png` or `format: webp`"
                        )))
            }
            let backgroundName = parameters.string("background") ?? "#ffffff"
            guard let background = RGBColor(backgroundName) else {
                return finish(
                    .failure(
                        context.failure(
                            .invalidInput,
                            "background '\(backgroundName)' is not a colour: use #rrggbb, #rgb, white or black")))
            }
            let options = EncodeOptions(
                format: format, quality: parameters.int("quality") ?? 90,
                progressive: parameters.bool("progressive") ?? false, lossless: parameters.bool("lossless") ?? false,
                background: background,
                keep: Set((parameters.stringList("keep") ?? []).compactMap(ImageMetadata.Kind.init(rawValue:))))
            do {
                bytes = try ImageEncoder.encode(image, options)
                if context.previews { preview = ImagePreview.jpeg(of: image) }
            } catch {
                return finish(
                    .failure(
                        context.failure(.internalError, "cannot encode \(format.rawValue): \(error)", cause: error)))
            }
        } else if let payload = input((any DataProvider).self)?.providedData {
            bytes = payload.bytes
        } else {
            return finish(
                .failure(context.failure(.invalidInput, "no input image or data (the upstream node provided none)")))
        }
        if finishIfCancelled() { return }
        if let refused = context.claimOutput(path) { return finish(.failure(refused)) }
        let writer = AtomicFileWriter(path: path, overwrite: parameters.bool("overwrite") ?? true)
        do {
            guard try writer.write(bytes, isCancelled: { isCancelled }) else { return finish(.cancelled) }
            if context.previews {
                record(Artifact(path: URL(fileURLWithPath: path).standardizedFileURL.path, preview: preview))
            }
            finish(.success(FileOutput(path: rawPath, byteCount: bytes.count)))
        } catch {
            finish(.failure(context.failure(.io, error.message, cause: error)))
        }
    }
}
