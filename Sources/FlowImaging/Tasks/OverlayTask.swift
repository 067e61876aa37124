import FlowKit
import Foundation

/// `overlay`: composites an image file — a watermark, a logo — over the image at a gravity and offset, with an
/// opacity, alpha-correct (see ``Image/overlaid(with:x:y:opacity:shouldContinue:)``).
///
/// The file is an input of the workflow like a `fetch`ed one: it is declared as read (a `write` of the same path
/// is refused) and identified in the node's key by its stamp (or content, with `cache: content`), so replacing
/// the watermark re-runs the nodes that use it. A file that is missing is a validation error (``RequiresFilesBeforeRun``).
package struct OverlayTask: TaskType, RequiresFilesBeforeRun {
    /// The largest overlay file read: a watermark is small; a bigger file is a mistake, not a reason to read it all.
    package static let maxFileBytes = 64 << 20

    package init() {}
    package var name: String { "overlay" }
    package var summary: String { "Composites an image file (a watermark) over the image at a gravity, with opacity." }
    package var consumes: InputRequirement { .oneOf([.image]) }
    package var provides: ProviderKind? { .image }

    /// The parameters of ``OverlayTask``.
    package struct Parameters: TaskParameters {
        @Parameter(help: "The image file to composite (JPEG, PNG or WebP), relative to the workflow's folder.")
        package var path: String
        @Parameter(help: "Where it goes: centre, an edge or a corner (north, southeast, …).")
        package var gravity = Gravity.centre
        @Parameter(
            help: "Pixels inward from the left or right edge the gravity names (rightward when centred).",
            range: -65535...65535)
        package var offsetX = 0
        @Parameter(
            help: "Pixels inward from the top or bottom edge the gravity names (downward when centred).",
            range: -65535...65535)
        package var offsetY = 0
        @Parameter(help: "How opaque the overlay is: 0 invisible, 1 as the file says.", range: 0...1)
        package var opacity = 1.0
        package init() {}
    }

    package func fileAccess(_ parameters: Parameters) -> FileAccess {
        guard !parameters.path.isEmpty else { return .none }
        return FileAccess(reads: [.init(parameters.path, from: parameters.$path.name)])
    }

    package func sourceIdentity(_ parameters: Parameters, directory: String, cache: CacheSetting?) -> SourceIdentity? {
        .file(
            atPath: NodeContext.resolve(parameters.path, in: directory), relativeTo: directory,
            byContent: cache == .content)
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { OverlayOperation(context: context) }
}

/// The operation of ``OverlayTask``: reads and decodes the file, then composites it.
package final class OverlayOperation: ImageOperation, @unchecked Sendable {
    package override func transform(_ image: Image) throws(ImageOperationError) -> Image {
        let parameters = context.parameters(as: OverlayTask.Parameters.self)
        let path = context.resolvePath(parameters.path)
        let overlay = try read(path, as: parameters.path)
        let origin = parameters.gravity.origin(
            of: overlay.width, overlay.height, inWidth: image.width, height: image.height,
            inset: (parameters.offsetX, parameters.offsetY))
        return image.overlaid(
            with: overlay, x: origin.x, y: origin.y, opacity: parameters.opacity, shouldContinue: shouldContinue)
            ?? image
    }

    /// The decoded overlay file: a regular file only, so a FIFO, a device or a folder is refused saying what it
    /// is, and never blocks the read or reads without end.
    private func read(_ path: String, as written: String) throws(ImageOperationError) -> Image {
        let opened: RegularFile.Opened
        switch RegularFile.open(path) {
        case .success(let file): opened = file
        case .failure(let failure): throw ImageOperationError("cannot read overlay '\(written)': \(failure.reason)")
        }
        defer { close(opened.descriptor) }
        let size = Int(opened.status.st_size)
        guard size <= OverlayTask.maxFileBytes else {
            throw ImageOperationError(
                "overlay '\(written)' is \(size) bytes, more than the \(OverlayTask.maxFileBytes) an overlay may have")
        }
        let bytes: Data
        switch RegularFile.readAll(opened.descriptor, limit: OverlayTask.maxFileBytes) {
        case .success(let read): bytes = Data(read)
        case .failure(let failure): throw ImageOperationError("cannot read overlay '\(written)': \(failure.reason)")
        }
        do {
            return try ImageDecoder.decode(
                bytes, source: written, warn: { warn($0) }, shouldContinue: { _ in !isCancelled })
        } catch {
            throw ImageOperationError("cannot decode overlay '\(written)': \(error.message)")
        }
    }
}
