internal import CFlowShims
import Foundation

/// A stdio stream over bytes in memory that asks whether to go on before each read, for decoders that read
/// through stdio as they decode (libpng): a stop makes the next read fail, which ends the decode at once.
enum CheckedStream {
    /// The most a single read returns, so that checks come at least this often.
    static let bytesPerCheck = 1 << 16

    /// Runs `body` with a stream reading `bytes` from the start, asking `shouldContinue` (with the bytes read so far)
    /// before each read but the first.
    /// - Returns: What `body` returned, and whether `shouldContinue` said to stop (the decode's failure is then a
    ///   failed read, not a fault of the file).
    static func reading<Result>(
        _ bytes: UnsafeRawBufferPointer, shouldContinue: (_ bytesDone: Int) -> Bool,
        _ body: (_ file: UnsafeMutablePointer<FILE>?) -> Result
    ) -> (result: Result, stopped: Bool) {
        withoutActuallyEscaping(shouldContinue) { check in
            let state = State(check)
            let context = Unmanaged.passUnretained(state).toOpaque()
            let file = cflow_checked_stream_open(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, bytesPerCheck,
                { context, done in
                    guard let context else { return 1 }
                    let state = Unmanaged<State>.fromOpaque(context).takeUnretainedValue()
                    if state.shouldContinue(done) { return 1 }
                    state.stopped = true
                    return 0
                }, context)
            defer { if let file { fclose(file) } }
            let result = withExtendedLifetime(state) { body(file) }
            return (result, state.stopped)
        }
    }

    /// What the C callback reaches through its context pointer.
    private final class State {
        let shouldContinue: (Int) -> Bool
        var stopped = false
        init(_ shouldContinue: @escaping (Int) -> Bool) { self.shouldContinue = shouldContinue }
    }
}
