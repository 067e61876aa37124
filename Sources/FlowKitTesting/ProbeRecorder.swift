import FlowKit
import Foundation

/// Records what probe nodes did: start and end order, the inputs each saw, the most nodes running at once
/// per queue, and how many outputs are alive.
package final class ProbeRecorder: @unchecked Sendable {
    /// One probe attempt as observed.
    package struct Entry: Sendable {
        /// The node id.
        package var nodeID: String
        /// The attempt number.
        package var attempt: Int
        /// The texts of the data inputs it saw, in order.
        package var inputs: [String]
        /// Order of the start among all events.
        package var startSequence: Int
        /// Order of the end among all events.
        package var endSequence: Int?
        /// The operation's `queuePriority` when it started.
        package var queuePriority: Operation.QueuePriority = .normal
    }

    private let condition = NSCondition()
    private var entries: [Entry] = []
    private var sequence = 0
    private var running: [String: Int] = [:]
    private var peak: [String: Int] = [:]
    private var limits: [String: Int]
    private var liveOutputs = 0
    private var peakOutputs = 0
    private var blocked = 0
    /// How each blocked probe succeeds when released, by node id.
    private var releases: [String: @Sendable () -> Void] = [:]
    private var waiters: [String: [@Sendable () -> Void]] = [:]

    /// Creates a recorder; `queueLimits` lets `hold` end early once a queue is full.
    package init(queueLimits: [String: Int] = [:]) {
        self.limits = queueLimits
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    func started(_ context: NodeContext, inputs: [String], queuePriority: Operation.QueuePriority = .normal) {
        locked {
            sequence += 1
            entries.append(
                Entry(
                    nodeID: context.nodeID, attempt: context.attempt, inputs: inputs, startSequence: sequence,
                    queuePriority: queuePriority))
            let queue = Self.queue(of: context)
            running[queue, default: 0] += 1
            peak[queue] = max(peak[queue] ?? 0, running[queue] ?? 0)
            condition.broadcast()
        }
        let queue = Self.queue(of: context)
        if locked({ (running[queue] ?? 0) >= (limits[queue] ?? .max) }) { releaseWaiters(of: queue) }
    }

    func ended(_ context: NodeContext) {
        locked {
            sequence += 1
            if let index = entries.lastIndex(where: { $0.nodeID == context.nodeID && $0.attempt == context.attempt }) {
                entries[index].endSequence = sequence
            }
            running[Self.queue(of: context), default: 0] -= 1
        }
    }

    /// Calls `done` once the node's queue is full or the time has passed, so a test sees the limit reached
    /// without depending on timing — and without holding a thread meanwhile.
    func hold(milliseconds: Int, queue: String, done: @escaping @Sendable () -> Void) {
        let fireNow = locked { () -> Bool in
            if (running[queue] ?? 0) >= (limits[queue] ?? .max) { return true }
            waiters[queue, default: []].append(done)
            return false
        }
        if fireNow {
            releaseWaiters(of: queue)
            return done()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [self] in
            releaseWaiters(of: queue)
        }
    }

    private func releaseWaiters(of queue: String) {
        let due = locked { () -> [@Sendable () -> Void] in
            defer { waiters[queue] = [] }
            return waiters[queue] ?? []
        }
        for waiter in due { waiter() }
    }

    func didBlock(_ nodeID: String, release: @escaping @Sendable () -> Void) {
        locked {
            blocked += 1
            releases[nodeID] = release
            condition.broadcast()
        }
    }

    func didUnblock(_ nodeID: String) {
        locked {
            blocked -= 1
            releases[nodeID] = nil
        }
    }

    /// Lets a probe blocked in `block` behaviour succeed.
    /// - Returns: Whether that node was blocked.
    @discardableResult
    package func release(_ nodeID: String) -> Bool {
        guard let release = locked({ releases[nodeID] }) else { return false }
        release()
        return true
    }

    /// Blocks until a node has started (its first attempt), or `timeout` passes.
    /// - Returns: Whether it started.
    @discardableResult
    package func waitUntilStarted(_ nodeID: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !entries.contains(where: { $0.nodeID == nodeID }) {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }

    func outputCreated() {
        locked {
            liveOutputs += 1
            peakOutputs = max(peakOutputs, liveOutputs)
        }
    }

    func outputReleased() {
        locked {
            liveOutputs -= 1
            condition.broadcast()
        }
    }

    /// The outputs still alive once none is, or once `timeout` has passed.
    ///
    /// Wait for this rather than reading ``outputsAlive`` as soon as `Runner.run()` returns: the thread that
    /// finished the last node still holds that node's output while its `finish(_:)` call returns (the argument
    /// lives in the caller's frame), a moment after the runner has let `run()` return.
    package func outputsAliveOnceReleased(timeout: TimeInterval = 5) -> Int {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while liveOutputs > 0, condition.wait(until: deadline) {}
        return liveOutputs
    }

    /// Blocks until `count` probes are blocked in `block` behaviour.
    @discardableResult
    package func waitUntilBlocked(_ count: Int, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while blocked < count {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }

    /// Every attempt seen, in start order.
    package var all: [Entry] { locked { entries } }
    /// The entry of a node's last attempt.
    package func entry(_ nodeID: String) -> Entry? { locked { entries.last { $0.nodeID == nodeID } } }
    /// The most nodes that ran at once on a queue.
    package func peakConcurrency(of queue: String) -> Int { locked { peak[queue] ?? 0 } }
    /// How many outputs are alive now.
    package var outputsAlive: Int { locked { liveOutputs } }
    /// The most outputs alive at once.
    package var peakOutputsAlive: Int { locked { peakOutputs } }

    private static func queue(of context: NodeContext) -> String {
        context.queueName
    }
}
