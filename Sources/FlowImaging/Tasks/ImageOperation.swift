import FlowKit
import Foundation

/// The shared base of the operations that turn one image into another (`sepia`, `noir`, `resize`).
///
/// Subclasses implement ``transform(_:)``; the base reads the input image, checks cancellation before and after,
/// and provides the output as ``ImageProvider``.
open class ImageOperation: FlowOperation, ImageProvider, @unchecked Sendable {
    /// The output image, once finished.
    public var providedImage: Image? { output(as: Image.self) }

    /// Reads the input image, transforms it, and finishes with the result or the failure.
    public override func execute() {
        if finishIfCancelled() { return }
        guard let image = input((any ImageProvider).self)?.providedImage else {
            return finish(.failure(context.failure(.invalidInput, "no input image (the upstream node provided none)")))
        }
        if let cause = reasonToSkip(image) { return finish(.skipped(cause)) }
        if let size = outputSize(for: image) {
            do throws(ImageCodecError) {
                try PixelBudget.check(width: size.width, height: size.height, making: "the \(context.typeName) output")
            } catch {
                return finish(.failure(context.failure(.invalidInput, error.message, cause: error)))
            }
        }
        do {
            let result = try transform(image)
            if finishIfCancelled() { return }
            finish(.success(result))
        } catch {
            if finishIfCancelled() { return }
            finish(.failure(context.failure(.invalidInput, error.message)))
        }
    }

    /// Computes the output from the input image. Runs once, on the operation's thread.
    ///
    /// Long kernels should stop early when the operation is cancelled (return anything: the base then finishes as
    /// cancelled); ask ``shouldContinue(_:)`` every few rows. Throw when the image does not suit the parameters
    /// (a crop box outside it, a result too large): the node fails with the message.
    open func transform(_ image: Image) throws(ImageOperationError) -> Image { image }

    /// Why the node has nothing to do for this image, or `nil` (the default) to transform it. A cause ends the node
    /// `skipped` with it (`FlowOperation.Outcome.skipped`), before anything is allocated: its
    /// dependents are skipped too, and the run does not fail.
    open func reasonToSkip(_ image: Image) -> String? { nil }

    /// The size of the largest image ``transform(_:)`` will allocate for `image`, checked against the
    /// pixel budget (`FLOWRUN_MAX_PIXELS`) before it runs; `nil` (the default) for an output no larger than the input.
    open func outputSize(for image: Image) -> (width: Int, height: Int)? { nil }

    /// A progress check for kernels: `false` once the operation is cancelled (a timeout or Ctrl-C).
    public final func shouldContinue(_ done: Int) -> Bool { !isCancelled }
}

/// Why an ``ImageOperation`` cannot transform its image: the message names the problem and the sizes involved.
public struct ImageOperationError: Error, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }

    /// Throws unless a `width` × `height` result is within the pixel budget (`FLOWRUN_MAX_PIXELS`), before anything is allocated.
    public static func checkSize(width: Int, height: Int, of what: String) throws(ImageOperationError) {
        do throws(ImageCodecError) {
            try PixelBudget.check(width: width, height: height, making: what)
        } catch {
            throw ImageOperationError(error.message)
        }
    }
}
