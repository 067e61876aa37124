import FlowKit
import Foundation
import TestSupport
import Testing

// Shared by the tests that run one operation outside the runner (fetch, command).

/// Runs `operation` (after `upstream`, if any) on its own queue and waits, bounded so a hang fails the test
/// instead of stalling the run.
@discardableResult
func run(
    _ operation: FlowOperation, after upstream: FlowOperation? = nil, timeout: Duration = .seconds(20)
) async -> FlowOperation.Outcome? {
    let queue = OperationQueue()
    if let upstream {
        operation.addDependency(upstream)
        queue.addOperation(upstream)
    }
    queue.addOperation(operation)
    #expect(await waitUntil(timeout) { operation.isFinished }, "operation did not finish within \(timeout)")
    return operation.outcome
}

/// The failure of an outcome, if it is one.
func failureOf(_ outcome: FlowOperation.Outcome?) -> NodeFailure? {
    if case .failure(let failure)? = outcome { return failure }
    return nil
}

/// The bound for "promptly" in timing assertions: generous, because the whole test suite on a busy 2-core
/// machine can stall a test for seconds, yet far below the 20–60 s that the failure being tested for (a stall,
/// a 30 s program, a grace period) would take.
let promptly: Duration = .seconds(8)
