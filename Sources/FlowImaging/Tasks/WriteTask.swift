import FlowKit
import FlowS3
import Foundation

/// `write`: encodes an image (or passes bytes through) and writes it atomically to `path`, a file or an
/// `s3://bucket/key` object.
package struct WriteTask: TaskType {
    package init() {}
    package var name: String { "write" }
    package var summary: String { "Writes an image (JPEG, PNG, WebP or AVIF) or bytes to a file, atomically." }
    package var consumes: InputRequirement { .oneOf([.image, .data]) }
    package var provides: ProviderKind? { .file }
    /// 2: JPEG composites transparency over `background`; WebP; metadata kept on request.
    /// 3: PNG keeps a profile in an `iCCP` chunk.
    /// 4: AVIF; `strip`; a kept XMP's orientation reset to 1.
    /// 5: `strip` finds every EXIF directory (GPS pointers in IFD1, the Exif sub-IFD, given twice).
    package var implementationVersion: String { "5 " + CodecVersions.description }
    package func outputPath(_ parameters: Parameters) -> String? { parameters.path }

    package func fileAccess(_ parameters: Parameters) -> FileAccess {
        guard !parameters.path.isEmpty else { return .none }
        return FileAccess(writes: [.init(parameters.path, from: parameters.$path.name)])
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { WriteOperation(context: context) }
}

/// The operation of ``WriteTask``.
package final class WriteOperation: FlowOperation, FileProvider, DataProvider, WrittenFileObserving,
    @unchecked Sendable
{
    /// The file written, once finished.
    package var providedFile: FileOutput? { output(as: FileOutput.self) }

    /// The bytes of the file written, read back for a node that takes them as data (a `probe` of the output);
    /// `nil` for an object in a bucket, or when the file cannot be read.
    package var providedData: DataPayload? {
        guard let file = providedFile, S3Location(file.path) == nil,
            case .success(let opened) = RegularFile.open(context.resolvePath(file.path))
        else { return nil }
        defer { close(opened.descriptor) }
        guard case .success(let bytes) = RegularFile.readAll(opened.descriptor) else { return nil }
        return DataPayload(Data(bytes), source: file.path)
    }
    /// The stamp and digest of the file written, once finished: set before the operation finishes, read after.
    package private(set) var writtenFile: WrittenFile?

    package override func execute() {
        if finishIfCancelled() { return }
        let parameters = context.parameters(as: WriteTask.Parameters.self)
        var rawPath = parameters.path
        guard !rawPath.isEmpty else {
            return finish(.failure(context.failure(.invalidInput, "write needs a path")))
        }
        let bytes: Data
        var preview: Data?
        let images = inputs((any ImageProvider).self).compactMap(\.providedImage)
        // A gather's write gets every item: one file holds one image, so more than one is refused rather than all
        // but the first dropped; data is written whole, every item's in item order (as a gather command's stdin).
        guard images.count <= 1 else {
            return finish(
                .failure(
                    context.failure(
                        .invalidInput,
                        "a gather write gets \(images.count) images and one file holds one: write each item "
                            + "(without `gather: true`, path: \"out/${item.stem}.jpg\"), or encode them to data first"))
            )
        }
        if let image = images.first {
            let options: EncodeOptions
            switch encodeOptions(parameters) {
            case .success(let chosen): options = chosen
            case .failure(let failure): return finish(.failure(failure))
            }
            do {
                bytes = try ImageEncoder.encode(image, options)
                if context.previews { preview = ImagePreview.jpeg(of: image) }
            } catch {
                return finish(
                    .failure(
                        context.failure(
                            .internalError, "cannot encode \(options.format.displayName): \(error)", cause: error)))
            }
        } else if case let payloads = inputs((any DataProvider).self).compactMap(\.providedData), !payloads.isEmpty {
            if let mismatch = payloads.lazy.compactMap({ self.formatMismatch($0, parameters) }).first {
                return finish(.failure(mismatch))
            }
            bytes = payloads.count == 1 ? payloads[0].bytes : payloads.reduce(into: Data()) { $0 += $1.bytes }
        } else {
            return finish(
                .failure(context.failure(.invalidInput, "no input image or data (the upstream node provided none)")))
        }
        if finishIfCancelled() { return }
        // Hashed once: the digest that names the file (`${output.hash}`) is the one the store records of it.
        let hashed = OutputHash.isPattern(rawPath)
        let digest = hashed ? WrittenFile.digest(of: bytes) : nil
        if let digest { rawPath = OutputHash.name(rawPath, digest: digest) }
        if let upload = S3Upload.destination(rawPath, context: context) {
            guard !hashed else {
                return finish(
                    .failure(context.failure(.invalidInput, "'${output.hash}' cannot name an object in a bucket")))
            }
            return write(bytes, to: upload, claiming: rawPath)
        }
        // The final name, decided by the content when the path asks for it: claimed, then written in one rename.
        let path = context.resolvePath(rawPath)
        if let refused = context.claimOutput(path) { return finish(.failure(refused)) }
        do {
            let file = try AtomicFile(path: path, overwrite: parameters.overwrite, createFolders: true)
            try file.write(bytes)
            // Taken from the open file and the bytes in hand: the store records them without reading it back.
            let stamp = file.stamp()
            guard try file.commit(unless: { isCancelled }) else { return finish(.cancelled) }
            writtenFile = stamp.map {
                WrittenFile(path: path, stamp: $0, sha256: digest ?? WrittenFile.digest(of: bytes))
            }
            if context.previews {
                record(Artifact(path: URL(fileURLWithPath: path).standardizedFileURL.path, preview: preview))
            }
            finish(.success(FileOutput(path: rawPath, byteCount: bytes.count)))
        } catch {
            finish(.failure(context.failure(.io, error.message, cause: error)))
        }
    }

    /// The encoding `write` uses for an image, or why it cannot encode one: what validation checks, for a path whose
    /// extension was only known once interpolated.
    private func encodeOptions(_ parameters: WriteTask.Parameters) -> Result<EncodeOptions, NodeFailure> {
        let ext = FilePaths.fileExtension(of: parameters.path)
        guard let format = parameters.target, format.isWritable else {
            let writable = WritableFormat.list
            return .failure(
                context.failure(
                    .invalidInput,
                    "cannot tell a format flowrun writes from the extension '.\(ext)' of '\(parameters.path)': "
                        + "give `format:` (\(writable))"))
        }
        if let (parameter, appliesTo) = parameters.inapplicable(to: format).first {
            return .failure(
                context.failure(
                    .invalidInput,
                    "'\(parameter.name)' does not apply to \(format.displayName) (it applies to \(appliesTo) only)"))
        }
        guard let background = RGBColor(parameters.background) else {
            return .failure(
                context.failure(
                    .invalidInput,
                    "background '\(parameters.background)' is not a colour: use #rrggbb, #rgb, white or black"))
        }
        let strip = Set((parameters.strip ?? []).compactMap(ExifField.init(rawValue:)))
        var keep = Set((parameters.keep ?? []).compactMap(ImageMetadata.Kind.init(rawValue:)))
        // Stripping fields keeps the rest of the EXIF.
        if !strip.isEmpty { keep.insert(.exif) }
        return .success(
            EncodeOptions(
                format: format, quality: parameters.quality, progressive: parameters.progressive,
                lossless: parameters.lossless, effort: parameters.effort, chroma: parameters.chroma,
                background: background, keep: keep, strip: strip))
    }

    /// The failure for data that is an image of one format written under the name or `format:` of another (JPEG
    /// bytes to `x.webp` would stay JPEG under a WebP name): `nil` when they agree or either is not an image format.
    private func formatMismatch(_ payload: DataPayload, _ parameters: WriteTask.Parameters) -> NodeFailure? {
        guard let target = parameters.target, let actual = ImageFormat.sniff(payload.bytes), actual != target else {
            return nil
        }
        let named = parameters.format == nil ? "the path '\(parameters.path)' names" : "`format:` says"
        return context.failure(
            .invalidInput,
            "the data is a \(actual.displayName) image but \(named) \(target.displayName); write does not convert data: "
                + "put a `decode` before this write to re-encode it, or write it under a .\(actual.rawValue) name")
    }

    private func write(_ bytes: Data, to upload: Result<S3Upload, NodeFailure>, claiming path: String) {
        switch upload {
        case .failure(let failure): finish(.failure(failure))
        case .success(let upload):
            if let refused = context.claimOutput(path) { return finish(.failure(refused)) }
            let cancellation = S3Cancellation()
            upload.start(bytes, context: context, cancellation: cancellation) { [self] in finish($0) }
            whenCancelled { cancellation.cancel() }
        }
    }
}
