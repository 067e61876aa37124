/// Runs a pointwise kernel over RGBA8 pixels in batches, so that a long run can be stopped between two of them.
enum PixelBatches {
    /// Pixels per batch: 64 Ki pixels (256 KiB, about 10 rows of a 24-megapixel photo, a fraction of a
    /// millisecond), often enough to stop promptly, rarely enough to cost nothing measurable.
    static let size = 1 << 16

    /// A new buffer of `pixels.count` bytes filled by `kernel(source, destination, pixelCount)` batch by batch.
    /// - Parameter shouldContinue: Asked before every batch but the first with the pixels done so far.
    /// - Returns: The buffer, or `nil` when `shouldContinue` returned `false`.
    static func map(
        _ pixels: [UInt8], shouldContinue: (_ pixelsDone: Int) -> Bool,
        kernel: (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int) -> Void
    ) -> [UInt8]? {
        let total = pixels.count / 4
        var completed = true
        let output = [UInt8](unsafeUninitializedCapacity: pixels.count) { out, initialized in
            pixels.withUnsafeBufferPointer { input in
                guard let source = input.baseAddress, let destination = out.baseAddress else { return }
                var done = 0
                while done < total {
                    if done > 0, !shouldContinue(done) {
                        completed = false
                        return
                    }
                    let count = min(size, total - done)
                    kernel(source + done * 4, destination + done * 4, count)
                    done += count
                }
            }
            // Every byte is written unless stopped, and a stopped buffer is dropped unread.
            initialized = pixels.count
        }
        return completed ? output : nil
    }
}
