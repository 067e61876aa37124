import Foundation
import Testing

@testable import FlowKit

/// `command` needs no thread of Swift's cooperative pool at the default priority: a program's pipes are read,
/// its exit seen and the node finished while an app (or a test) blocks every one of them waiting synchronously.
@Suite struct CommandPoolTests {
    /// What happened while the pool was held.
    private struct Observation: Sendable {
        /// Whether the operation finished while every thread of the pool was blocked.
        var finishedWhileBlocked: Bool
        /// Whether a task of the default priority ran meanwhile (then the pool was not blocked after all).
        var poolRanSomething: Bool
    }

    @Test func aProgramEndsWhileTheDefaultPriorityPoolIsBlocked() async throws {
        // A megabyte of output: far more than a pipe holds, so the program ends only if its output is read.
        let argv: [Value] = ["head", "-c", "1000000", "/dev/zero"].map { .string($0) }
        let context = NodeContext(
            nodeID: "cmd", typeName: "command", parameters: ParameterValues(["argv": .list(argv)]),
            workflowDirectory: ".")
        let op = CommandOperation(context: context)
        let observation = try #require(await Self.whileThePoolIsBlocked { Self.finish(op, within: .seconds(10)) })
        try #require(!observation.poolRanSomething, "the test could not block the whole pool here")
        #expect(observation.finishedWhileBlocked, "the program's run needed the blocked pool")
        #expect(op.providedData?.bytes.count == 1_000_000, "outcome: \(String(describing: op.outcome))")
    }

    /// Runs `op` on a queue of its own and polls (from this thread) until it has finished or `timeout` passed.
    private static func finish(_ op: CommandOperation, within timeout: Duration) -> Bool {
        let queue = OperationQueue()
        queue.addOperation(op)
        let deadline = ContinuousClock.now + timeout
        while !op.isFinished, ContinuousClock.now < deadline { usleep(1000) }
        return op.isFinished
    }

    /// Blocks every thread of the default-priority pool, runs `body` on a thread of its own meanwhile, then lets
    /// the pool go. `nil` when the pool could not be filled within a minute.
    private static func whileThePoolIsBlocked(
        _ body: @escaping @Sendable () -> Bool
    ) async -> Observation? {
        await withCheckedContinuation { continuation in
            // This test's own task is suspended here, so its thread is one of those the blockers take.
            Thread {
                let width = ProcessInfo.processInfo.activeProcessorCount  // the pool's width on Linux
                let holding = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                for _ in 0..<width {
                    Task.detached(priority: .medium) {
                        holding.signal()
                        release.wait()
                    }
                }
                defer { for _ in 0..<width { release.signal() } }
                for _ in 0..<width where holding.wait(timeout: .now() + 60) != .success {
                    return continuation.resume(returning: nil)
                }
                let probe = LockedBox(false)
                Task.detached(priority: .medium) { probe.withLock { $0 = true } }
                let finished = body()
                continuation.resume(
                    returning: Observation(
                        finishedWhileBlocked: finished, poolRanSomething: probe.withLock { $0 }))
            }.start()
        }
    }
}
