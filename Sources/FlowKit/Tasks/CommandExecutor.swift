import Dispatch

/// Where a `command` node's asynchronous work runs: a serial Dispatch queue of its own rather than Swift's
/// cooperative pool.
///
/// Why: on Linux the cooperative pool has as many threads as the machine has cores, per priority, and never
/// grows. Code that blocks them (a test or an app waiting synchronously) would leave a program's pipes unread
/// and its exit unnoticed. A serial queue gets a thread of its own when the pool is busy, and every child task
/// Subprocess starts (pipe reads and writes, the wait for the exit) inherits this executor.
///
/// One piece of Subprocess's work cannot follow: each run's cleanup handler is an unstructured `Task`, which
/// does not inherit a task executor preference, so it runs on the global pool at the run's priority, briefly,
/// when the run starts and when it ends. That is why ``CommandOperation`` runs at ``priority``.
final class CommandExecutor: TaskExecutor, @unchecked Sendable {
    /// The priority of a run: above the default, so that the cleanup handler's turns on the pool come from
    /// threads that work at the default priority cannot hold (Linux keeps one pool per priority).
    static let priority = TaskPriority.high

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
