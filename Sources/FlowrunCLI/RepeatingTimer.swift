import Dispatch
import FlowBasics

/// Calls a handler at a steady interval on a utility queue, from the first tick at once, until stopped: what
/// the progress line and the progress log tick with.
final class RepeatingTimer: Sendable {
    private let source = LockedBox<(any DispatchSourceTimer)?>(nil)

    /// Starts calling `handler` every `interval`.
    func start(every interval: Duration, _ handler: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        let milliseconds = Int(interval / .milliseconds(1))
        timer.schedule(deadline: .now(), repeating: .milliseconds(milliseconds))
        timer.setEventHandler(handler: handler)
        source.withLock { $0 = timer }
        timer.resume()
    }

    /// Stops the ticks; `false` when it was not running (never started, or stopped already). A tick in flight
    /// may still be running when this returns.
    @discardableResult
    func stop() -> Bool {
        let timer = source.withLock { source -> (any DispatchSourceTimer)? in
            defer { source = nil }
            return source
        }
        guard let timer else { return false }
        timer.cancel()
        return true
    }
}
