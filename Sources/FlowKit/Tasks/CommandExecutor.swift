import Dispatch

/// Where a `command` node's asynchronous work runs: a serial Dispatch queue of its own rather than Swift's
/// cooperative pool.
///
/// Why: the cooperative pool is as wide as the machine has cores, and on Linux it shares libdispatch's
/// threads; an embedding app (or a test) that blocks a few of them would leave a program's pipes unread and
/// its exit unnoticed. A serial queue overcommits — it gets a thread even when the pool is busy — and every
/// child task Subprocess starts inherits this executor.
final class CommandExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
