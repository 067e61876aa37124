import FlowBasics
import Foundation
import Testing

@testable import FlowKit

#if canImport(Glibc)
    import Glibc
#endif

/// `command` needs no thread of Swift's cooperative pool at the default priority: a program's pipes are read,
/// its exit seen and the node finished while an app (or a test) blocks every one of them waiting synchronously.
///
/// The check runs in a child process (an exit test): blocking the whole pool here would stall every test
/// running beside it.
@Suite struct CommandPoolTests {
    /// The child exits 0 when the program ran to its end while the pool was blocked; otherwise with a
    /// ``Verdict`` code, which the failure shows.
    @Test func aProgramEndsWhileTheDefaultPriorityPoolIsBlocked() async throws {
        await #expect(processExitsWith: .success) {
            let verdict = await CommandPoolTests.whileThePoolIsBlocked {
                CommandPoolTests.runsToTheEnd(within: .seconds(10))
            }
            exit(verdict.rawValue)
        }
    }

    /// How the check in the child ended.
    enum Verdict: Int32, Sendable {
        case ranToTheEnd = 0
        /// The program's run needed the blocked pool: it did not finish in time.
        case notFinished = 1
        /// It finished without all of its output.
        case wrongOutput = 2
        /// The pool's threads could not all be taken.
        case poolNotFilled = 3
        /// A task of the pool's priority ran meanwhile: the pool is wider than assumed, the check proves nothing.
        case poolNotBlocked = 4
    }

    /// Runs a program with a megabyte of output — far more than a pipe holds, so it ends only if its output is
    /// read — and polls from this thread until the operation has finished.
    private static func runsToTheEnd(within timeout: Duration) -> Verdict {
        let argv: [Value] = ["head", "-c", "1000000", "/dev/zero"].map { .string($0) }
        let context = NodeContext(
            nodeID: "cmd", typeName: "command", parameters: ParameterValues(["argv": .list(argv)]),
            workflowDirectory: ".")
        let op = CommandOperation(context: context)
        let queue = OperationQueue()
        queue.addOperation(op)
        let deadline = ContinuousClock.now + timeout
        while !op.isFinished, ContinuousClock.now < deadline { usleep(1000) }
        guard op.isFinished else { return .notFinished }
        return op.providedData?.bytes.count == 1_000_000 ? .ranToTheEnd : .wrongOutput
    }

    /// Blocks every thread of the default-priority pool, runs `body` on a thread of its own meanwhile, then lets
    /// the pool go. Answers what `body` answered, or why the pool could not be blocked.
    private static func whileThePoolIsBlocked(_ body: @escaping @Sendable () -> Verdict) async -> Verdict {
        await withCheckedContinuation { continuation in
            // The calling task is suspended here, so its thread is one of those the blockers take.
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
                for _ in 0..<width where holding.wait(timeout: .now() + 30) != .success {
                    return continuation.resume(returning: .poolNotFilled)
                }
                let probe = LockedBox(false)
                Task.detached(priority: .medium) { probe.withLock { $0 = true } }
                let verdict = body()
                guard !probe.withLock({ $0 }) else {
                    return continuation.resume(returning: .poolNotBlocked)
                }
                continuation.resume(returning: verdict)
            }.start()
        }
    }
}
