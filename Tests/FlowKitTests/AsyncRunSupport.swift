import FlowKit
import Foundation

// Helpers for the test that awaited runs hold no thread (`RunnerTests.awaitedRunsShareOneThread`).

/// Holds operations until `size` of them have started, then finishes them all; after 10 s it fails them.
/// No thread waits meanwhile.
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [FlowOperation] = []
    private let size: Int

    init(size: Int) { self.size = size }

    func arrive(_ operation: FlowOperation) {
        let opened: [FlowOperation] = lock.withLock {
            waiting.append(operation)
            defer { if waiting.count == size { waiting = [] } }
            return waiting.count == size ? waiting : []
        }
        for operation in opened { operation.finish(.success(nil)) }
        if opened.isEmpty {
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { [self] in
                let late = lock.withLock {
                    guard let index = waiting.firstIndex(where: { $0 === operation }) else { return false }
                    waiting.remove(at: index)
                    return true
                }
                if late { operation.finish(.failure(operation.context.failure(.timedOut, "the gate never opened"))) }
            }
        }
    }
}

struct GateTask: TaskType {
    let gate: Gate
    var name: String { "gate" }
    var summary: String { "waits for every gate to start" }
    var consumes: InputRequirement { .anything }
    var provides: ProviderKind? { nil }
    func makeOperation(_ context: NodeContext) -> FlowOperation { GateOperation(context: context, gate: gate) }
}

final class GateOperation: FlowOperation, @unchecked Sendable {
    let gate: Gate
    init(context: NodeContext, gate: Gate) {
        self.gate = gate
        super.init(context: context)
    }
    override func execute() { gate.arrive(self) }
}

/// A task executor with one thread of its own, for checking that awaiting code holds no thread.
final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        let thread = Thread { [self] in
            while let job = next() { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func next() -> UnownedJob? {
        condition.withLock {
            while jobs.isEmpty && !stopped { condition.wait() }
            return jobs.isEmpty ? nil : jobs.removeFirst()
        }
    }
}
