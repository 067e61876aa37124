import Synchronization

/// Cancels a session's run from the moment ``RunSession/prepare()`` starts: a workflow with lists made at run
/// time runs its producers while preparing, before the ``PreparedRun`` and its runner exist.
/// Give one to ``SessionOptions/cancellation``; ``cancel()`` reaches every runner of the session, those started
/// before the call and those started after it. Use one per run: it holds on to the runners it reaches.
public final class RunCancellation: Sendable {
    private let state = Mutex<(cancelled: Bool, runners: [Runner])>((false, []))

    /// Creates a cancellation that nothing has used yet.
    public init() {}

    /// Cancels the runners started so far, and every runner the session starts from now on.
    /// - Returns: Whether a runner had started: `false` while the session has not run anything yet.
    @discardableResult
    public func cancel() -> Bool {
        let runners = state.withLock { state in
            state.cancelled = true
            return state.runners
        }
        for runner in runners { runner.cancel() }
        return !runners.isEmpty
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Makes `runner` one that ``cancel()`` reaches; cancels it at once when the session was cancelled already.
    func cover(_ runner: Runner) {
        let cancelled = state.withLock { state in
            state.runners.append(runner)
            return state.cancelled
        }
        if cancelled { runner.cancel() }
    }
}
