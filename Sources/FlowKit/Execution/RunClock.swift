import Dispatch
import FlowBasics
import Foundation

/// The time source of a run: timestamps for the report and the trace, delays for backoff and timeouts.
///
/// Tests inject a manual clock (`FlowKitTesting.ManualClock`) so retries and timeouts need no real sleeps.
public protocol RunClock: Sendable {
    /// The time since a fixed origin.
    var now: Duration { get }
    /// ``now`` in seconds. The runner stamps every attempt's start and end with it.
    var nowSeconds: Double { get }
    /// Runs `action` once after `delay`, on some thread.
    /// - Returns: A function that cancels the action if it has not run yet.
    @discardableResult
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}

extension RunClock {
    /// ``now`` in seconds.
    public var nowSeconds: Double { now.seconds }
}

/// The real clock: the monotonic clock and Dispatch timers.
///
/// It reads `clock_gettime` itself rather than `ContinuousClock`: the runner takes two timestamps per node,
/// and turning an `Instant` into seconds goes through 128-bit `Duration` arithmetic that costs more than the
/// read.
public struct SystemClock: RunClock {
    private let origin = Self.read()

    /// Creates a clock whose origin is now.
    public init() {}

    /// The time since the clock was made, on the monotonic clock.
    public var now: Duration {
        let time = Self.read()
        return .seconds(time.tv_sec - origin.tv_sec) + .nanoseconds(time.tv_nsec - origin.tv_nsec)
    }

    /// The time since the clock was made, in seconds, read without `Duration` arithmetic.
    public var nowSeconds: Double {
        let time = Self.read()
        return Double(time.tv_sec - origin.tv_sec) + Double(time.tv_nsec - origin.tv_nsec) * 1e-9
    }

    private static func read() -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time
    }

    /// Runs `action` once after `delay`, on a Dispatch timer; the returned function cancels it if it has not run.
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
    package func delay(afterAttempt attempt: Int) -> Duration {
        let exponential = baseDelay.seconds * Double(1 << min(max(attempt - 1, 0), 20))
        let capped = min(exponential, maxDelay.seconds)
        let spread = jitter ? Double.random(in: 0.5...1.0) : 1.0
        return .milliseconds(Int64((capped * spread * 1000).rounded()))
    }
}
