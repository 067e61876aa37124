import Dispatch
import Foundation

/// The time source of a run: timestamps for the report and the trace, delays for backoff and timeouts.
///
/// Tests inject a manual clock (`FlowKitTesting.ManualClock`) so retries and timeouts need no real sleeps.
public protocol RunClock: Sendable {
    /// The time since a fixed origin.
    var now: Duration { get }
    /// Runs `action` once after `delay`, on some thread.
    /// - Returns: A function that cancels the action if it has not run yet.
    @discardableResult
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}

/// The real clock: `ContinuousClock` time and Dispatch timers.
public struct SystemClock: RunClock {
    private let origin = ContinuousClock.now

    /// Creates a clock whose origin is now.
    public init() {}

    public var now: Duration { ContinuousClock.now - origin }

    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let work = DispatchWorkItem(block: action)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.seconds, execute: work)
        let handle = LockedBox(work)  // DispatchWorkItem is not Sendable; cancel it under a lock
        return { handle.withLock { $0.cancel() } }
    }
}

/// How failed attempts are retried: exponential backoff with jitter.
public struct RetryPolicy: Sendable {
    /// The delay before the first retry, before jitter.
    public var baseDelay: Duration
    /// The longest delay.
    public var maxDelay: Duration
    /// Whether delays are spread randomly over [50%, 100%] so retries of many nodes do not synchronise.
    public var jitter: Bool

    /// Creates a policy.
    public init(baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30), jitter: Bool = true) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
    }

    /// The delay before attempt `attempt + 1`, after `attempt` attempts failed (1-based).
    public func delay(afterAttempt attempt: Int) -> Duration {
        let exponential = baseDelay.seconds * Double(1 << min(max(attempt - 1, 0), 20))
        let capped = min(exponential, maxDelay.seconds)
        let spread = jitter ? Double.random(in: 0.5...1.0) : 1.0
        return .milliseconds(Int64((capped * spread * 1000).rounded()))
    }
}
