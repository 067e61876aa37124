import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads one of a child's output pipes on its own thread until end of file, or until abandoned.
///
/// Each stream gets its own reader so a child that fills one pipe while we wait on the other cannot deadlock.
/// The loop polls in short slices instead of blocking in `read`, so ``abandon()`` can end it when a
/// grandchild keeps the pipe open after the child exited (closing a descriptor does not wake a blocked read).
final class PipeReader: Sendable {
    /// What to keep of the stream.
    enum Mode: Sendable {
        /// Everything, up to a limit; past it, ``PipeReader/overflowed`` is set and the rest is discarded.
        case collect(limit: Int)
        /// The last `bytes` bytes (for a standard error tail).
        case tail(bytes: Int)
    }

    private struct State: Sendable {
        var bytes = Data()
        var overflowed = false
        var abandoned = false
    }

    private let handle: FileHandle
    private let mode: Mode
    private let state = Mutex(State())
    private let onOverflow: @Sendable () -> Void

    /// Creates a reader; `onOverflow` runs once, on the reader's thread, when a `collect` limit is passed.
    init(_ handle: FileHandle, mode: Mode, onOverflow: @escaping @Sendable () -> Void = {}) {
        self.handle = handle
        self.mode = mode
        self.onOverflow = onOverflow
    }

    /// What was kept so far.
    var bytes: Data { state.withLock { $0.bytes } }
    /// Whether the stream passed its `collect` limit.
    var overflowed: Bool { state.withLock { $0.overflowed } }

    /// Starts reading on a new thread; `done` runs on that thread after the pipe is closed.
    func start(name: String, done: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            readUntilEnd()
            // Through the FileHandle, not close(2): the handle would otherwise close the descriptor again on
            // deinit, possibly after the number was reused.
            try? handle.close()
            done()
        }
        thread.name = name
        thread.start()
    }

    /// Stops reading at the next poll slice (within ~50 ms), keeping what was read.
    func abandon() {
        state.withLock { $0.abandoned = true }
    }

    private func readUntilEnd() {
        let fd = handle.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !state.withLock({ $0.abandoned }) {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 50)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            guard ready > 0 else { return }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return }  // end of file, or an error we cannot recover from
            keep(buffer[..<count])
        }
    }

    private func keep(_ chunk: ArraySlice<UInt8>) {
        let overflowedNow = state.withLock { state -> Bool in
            switch mode {
            case .collect(let limit):
                guard !state.overflowed else { return false }
                guard state.bytes.count + chunk.count <= limit else {
                    state.overflowed = true
                    return true
                }
                state.bytes.append(contentsOf: chunk)
            case .tail(let keep):
                state.bytes.append(contentsOf: chunk)
                // Trim in batches, not on every chunk, to keep this linear.
                if state.bytes.count > 2 * keep { state.bytes = Data(state.bytes.suffix(keep)) }
            }
            return false
        }
        if overflowedNow { onOverflow() }
    }
}

/// Writes bytes to a child's standard input on its own thread, stopping when the child stops reading.
final class PipeWriter: Sendable {
    private let handle: FileHandle
    private let bytes: Data
    private let abandoned = Mutex(false)

    init(_ handle: FileHandle, bytes: Data) {
        self.handle = handle
        self.bytes = bytes
    }

    /// Starts writing on a new thread; closes the pipe (the child sees end of file) when done.
    func start(name: String, done: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            writeAll()
            try? handle.close()
            done()
        }
        thread.name = name
        thread.start()
    }

    /// Stops writing at the next poll slice.
    func abandon() {
        abandoned.withLock { $0 = true }
    }

    private func writeAll() {
        // A child that exits without reading all its input makes write(2) raise SIGPIPE, whose default action
        // kills the whole process. Block it for this thread only: write then fails with EPIPE, and the
        // pending signal is consumed below before the thread ends. No process-wide signal state changes.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        defer {
            var none = timespec(tv_sec: 0, tv_nsec: 0)
            while sigtimedwait(&pipeSignal, nil, &none) == SIGPIPE {}
        }
        let fd = handle.fileDescriptor
        // Non-blocking, so a child that never reads cannot hold this thread beyond `abandon()`.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var offset = 0
        while offset < bytes.count, !abandoned.withLock({ $0 }) {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(fd, base + offset, min(raw.count - offset, 64 * 1024))
            }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 50)
            } else {
                return  // EPIPE: the child closed its input; it decides how that ends
            }
        }
    }
}
