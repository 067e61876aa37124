import FlowKit
import Foundation

/// `write`: encodes an image (or passes bytes through) and writes it atomically to `path`.
public struct WriteTask: TaskType {
    public init() {}
    public var name: String { "write" }
    public var summary: String { "Writes an image (JPEG or PNG) or bytes to a file, atomically." }
    public var parameters: [ParameterSpec] {
        [
            ParameterSpec(
                "path", .string, required: true,
                summary: "The file to write; relative to the workflow's folder; parent folders are created."),
            ParameterSpec(
                "format", .oneOf(ImageFormat.allCases.map(\.rawValue)),
                summary: "jpeg or png; from the path's extension when absent."),
            ParameterSpec("quality", .integer, default: .int(90), range: 1...100, summary: "JPEG quality, 1 to 100."),
            ParameterSpec(
                "overwrite", .bool, default: .bool(true),
                summary: "Whether an existing file may be replaced; when false the node fails instead."),
        ]
    }
    public var consumes: InputRequirement { .oneOf([.image, .data]) }
    public var provides: ProviderKind? { .file }
    public var implementationVersion: String { "1 " + CodecVersions.description }
    public func outputPath(_ parameters: ParameterValues) -> String? { parameters.string("path") }

    public func validate(_ parameters: ParameterValues, into diagnostics: inout Diagnostics) {
        // Data is written as it is, whatever the extension; only an image needs a format.
        guard parameters.inputKind != .data, parameters.string("format") == nil, let path = parameters.string("path")
        else { return }
        // An interpolated path may only be known at run time; check what is literal.
        guard !path.contains("${") || !(path as NSString).pathExtension.contains("}") else { return }
        let ext = (path as NSString).pathExtension
        if ext.isEmpty {
            diagnostics.error(
                "write needs a format: path '\(path)' has no extension", at: parameters.location(of: "path"),
                hint: "add `format: jpeg` or `format: png`, or end the path in .jpg or .png")
        } else if ImageFormat(fileExtension: ext) == nil {
            diagnostics.error(
                "write's format from its extension: unknown extension '.\(ext)'",
                at: parameters.location(of: "path"),
                hint: "use .jpg, .jpeg or .png, or give `format: jpeg` or `format: png`")
        }
    }

    public func fileAccess(_ parameters: ParameterValues) -> FileAccess {
        guard let path = parameters.string("path"), !path.isEmpty else { return .none }
        return FileAccess(writes: [.init(path, from: "path")])
    }

    public func makeOperation(_ context: NodeContext) -> FlowOperation { WriteOperation(context: context) }
}

/// The operation of ``WriteTask``.
public final class WriteOperation: FlowOperation, FileProvider, @unchecked Sendable {
    /// The file written, once finished.
    public var providedFile: FileOutput? { output(as: FileOutput.self) }

    public override func execute() {
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
                            "cannot tell the format of '\(rawPath)' from its extension '.\(ext)': give `format: jpeg` or `format: png`"
                        )))
            }
            do {
                switch format {
                case .jpeg: bytes = try JPEGEncoder.encode(image, quality: parameters.int("quality") ?? 90)
                case .png: bytes = try PNGCodec.encode(image)
                }
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
