import FlowKit
import Foundation

/// The shared base of the operations that turn one image into another (`sepia`, `noir`, `resize`).
///
/// Subclasses implement ``transform(_:)``; the base reads the input image, checks cancellation before and after,
/// and provides the output as ``ImageProvider``.
open class ImageOperation: FlowOperation, ImageProvider, @unchecked Sendable {
    /// The output image, once finished.
    public var providedImage: Image? { output(as: Image.self) }

    public override func execute() {
        if finishIfCancelled() { return }
        guard let image = input((any ImageProvider).self)?.providedImage else {
            return finish(.failure(context.failure(.invalidInput, "no input image (the upstream node provided none)")))
        }
        let result = transform(image)
        if finishIfCancelled() { return }
        finish(.success(result))
    }

    /// Computes the output from the input image. Runs once, on the operation's thread.
    ///
    /// Long kernels should stop early when the operation is cancelled (return anything: the base then finishes as
    /// cancelled); ask ``shouldContinue(_:)`` every few rows.
    open func transform(_ image: Image) -> Image { image }

    /// A progress check for kernels: `false` once the operation is cancelled (a timeout or Ctrl-C).
    public final func shouldContinue(_ done: Int) -> Bool { !isCancelled }
}
