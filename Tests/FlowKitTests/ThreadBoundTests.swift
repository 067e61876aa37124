import FlowKit
import FlowKitTesting
import Foundation
import XCTest

/// The run's threads stay bounded by the queue limits however wide the graph is.
///
/// What dispatch really does (swift-corelibs-foundation's `OperationQueue` on libdispatch, Linux, 2 cores):
/// before a run the test process has 6 threads (main, 2 overcommit and 3 default-QoS dispatch workers); during
/// this 2,000-node run, with 13 slots over four queues, the peak was 9 — libdispatch's pool grows only as its
/// workers block, well under the sum of the limits, and never towards one thread per node. The bound asserted is
/// looser (the threads present before + the sum of the limits + a constant for dispatch's own workers and the
/// timer source).
///
/// An XCTest case, not a Swift Testing one, on purpose: `swift test` runs the XCTest cases one at a time before
/// the Swift Testing ones, which run in parallel and whose threads would be counted too (a peak of 61 was seen).
final class ThreadBoundTests: XCTestCase {
    /// The number of threads of this process.
    static func threadCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count
    }

    func testAWideGraphUsesNoMoreThreadsThanItsQueueLimitsAllow() throws {
        let recorder = ProbeRecorder(queueLimits: [:])  // no limits known: every probe holds its thread 2 ms
        let registry = TaskRegistry.builtIn.adding(ProbeTask(recorder: recorder))
        let items = (0..<500).map(String.init).joined(separator: ", ")
        let limits = ["a": 4, "b": 3, "c": 2, "s": 4, "default": 2]
        let plan = try TestWorkflow.plan(
            """
            version: 1
            queues: { a: { maxConcurrent: 4 }, b: { maxConcurrent: 3 }, c: { maxConcurrent: 2 }, s: { maxConcurrent: 4 } }
            tasks:
              pa: { type: probe, queue: a, hold: 2, forEach: [\(items)] }
              pb: { type: probe, queue: b, hold: 2, forEach: [\(items)] }
              pc: { type: probe, queue: c, hold: 2, forEach: [\(items)] }
              zz: { type: sleep, queue: s, duration: 2ms, forEach: [\(items)] }
            """, registry: registry)
        XCTAssertEqual(plan.nodes.count, 2_000)
        let before = Self.threadCount()
        let run = TestWorkflow.BackgroundRun(plan: plan, options: RunOptions(maxConcurrentDefault: 2))
        var peak = 0
        var samples = 0
        var report: RunReport?
        while report == nil {
            peak = max(peak, Self.threadCount())
            samples += 1
            report = run.wait(timeout: 0.002)
        }
        let bound = before + limits.values.reduce(0, +) + 16
        XCTAssertEqual(report?.exitCode, 0)
        XCTAssertEqual(report?.nodes.allSatisfy { $0.status == .succeeded }, true)
        XCTAssertGreaterThan(samples, 10, "the run ended before the thread count could be sampled")
        XCTAssertLessThanOrEqual(peak, bound, "peak \(peak) threads (\(before) before the run), bound \(bound)")
    }
}
