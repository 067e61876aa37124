import FlowKit
import Foundation

/// A ``RunClock`` that moves only when told, for testing backoff and timeouts without real sleeps (the
/// shape of NIO's `EmbeddedEventLoop`).
///
/// ```swift
/// let clock = ManualClock()
/// // … start a run on another thread with RunOptions(clock: clock) …
/// clock.waitForScheduled(count: 1)
/// clock.advance(by: .seconds(5))  // fires the timeout
/// ```
public final class ManualClock: RunClock, @unchecked Sendable {
    private struct Pending {
        var id: Int
        var deadline: Duration
        var action: @Sendable () -> Void
    }

    private let condition = NSCondition()
    private var current: Duration = .zero
    private var pending: [Pending] = []
    private var nextID = 0
    private var delays: [Duration] = []

    /// Creates a clock at time zero.
    public init() {}

    public var now: Duration {
        condition.lock()
        defer { condition.unlock() }
        return current
    }

    /// Every delay ever scheduled, in order: backoffs and timeouts.
    public var scheduledDelays: [Duration] {
        condition.lock()
        defer { condition.unlock() }
        return delays
    }

    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        condition.lock()
        let id = nextID
        nextID += 1
        pending.append(Pending(id: id, deadline: current + delay, action: action))
        delays.append(delay)
        condition.broadcast()
        condition.unlock()
        return { [weak self] in
            guard let self else { return }
            self.condition.lock()
            self.pending.removeAll { $0.id == id }
            self.condition.unlock()
        }
    }

    /// Moves time forward and runs, in deadline order, every action that falls due.
    public func advance(by duration: Duration) {
        condition.lock()
        current += duration
        let due = pending.filter { $0.deadline <= current }.sorted { $0.deadline < $1.deadline }
        pending.removeAll { $0.deadline <= current }
        condition.unlock()
        for item in due { item.action() }
    }

    /// Blocks until at least `count` actions have ever been scheduled, or `timeout` passes in real time.
    /// - Returns: Whether the count was reached.
    @discardableResult
    public func waitForScheduled(count: Int, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while delays.count < count {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }
}
