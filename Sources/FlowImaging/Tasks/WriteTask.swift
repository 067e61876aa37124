import FlowKit
import Foundation

/// `write`: encodes an image (or passes bytes through) and writes it atomically to `path`.
package struct WriteTask: TaskType {
    package init() {}
    package var name: String { "write" }
    package var summary: String { "Writes an image (JPEG, PNG or WebP) or bytes to a file, atomically." }
    package var consumes: InputRequirement { .oneOf([.image, .data]) }
    package var provides: ProviderKind? { .file }
    /// 2: JPEG composites transparency over `background`; WebP; metadata kept on request.
    /// 3: PNG keeps a profile in an `iCCP` chunk.
    package var implementationVersion: String { "3 " + CodecVersions.description }
    package func outputPath(_ parameters: Parameters) -> String? { parameters.path }

    package func fileAccess(_ parameters: Parameters) -> FileAccess {
        guard !parameters.path.isEmpty else { return .none }
        return FileAccess(writes: [.init(parameters.path, from: parameters.$path.name)])
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { WriteOperation(context: context) }
}

/// The operation of ``WriteTask``.
package final class WriteOperation: FlowOperation, FileProvider, @unchecked Sendable {
    /// The file written, once finished.
    package var providedFile: FileOutput? { output(as: FileOutput.self) }

    package override func execute() {
        if finishIfCancelled() { return }
        let parameters = context.parameters(as: WriteTask.Parameters.self)
        let rawPath = parameters.path
        guard !rawPath.isEmpty else {
            return finish(.failure(context.failure(.invalidInput, "write needs a path")))
        }
        let path = context.resolvePath(rawPath)
        let bytes: Data
        var preview: Data?
        if let image = input((any ImageProvider).self)?.providedImage {
            guard let format = parameters.format ?? ImageFormat(fileExtension: FilePaths.fileExtension(of: path)) else {
                let ext = FilePaths.fileExtension(of: path)
                return finish(
                    .failure(
                        context.failure(
                            .invalidInput,
                            "cannot tell the format of '\(rawPath)' from its extension '.\(ext)': "
                                + "give `format: jpeg`, `format: png` or `format: webp`"
                        )))
            }
            let backgroundName = parameters.background
            guard let background = RGBColor(backgroundName) else {
                return finish(
                    .failure(
                        context.failure(
                            .invalidInput,
                            "background '\(backgroundName)' is not a colour: use #rrggbb, #rgb, white or black")))
            }
            let options = EncodeOptions(
                format: format, quality: parameters.quality, progressive: parameters.progressive,
                lossless: parameters.lossless, background: background,
                keep: Set((parameters.keep ?? []).compactMap(ImageMetadata.Kind.init(rawValue:))))
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
        do {
            let file = try AtomicFile(path: path, overwrite: parameters.overwrite, createFolders: true)
            try file.write(bytes)
            guard try file.commit(unless: { isCancelled }) else { return finish(.cancelled) }
            if context.previews {
                record(Artifact(path: URL(fileURLWithPath: path).standardizedFileURL.path, preview: preview))
            }
            finish(.success(FileOutput(path: rawPath, byteCount: bytes.count)))
        } catch {
            finish(.failure(context.failure(.io, error.message, cause: error)))
        }
    }
}
