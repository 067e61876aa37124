import FlowBasics
import FlowKitTesting
import Foundation
import Testing

@testable import FlowKit

/// ``SessionOptions/onRunnerStart`` as a progress display uses it: it is told of every runner the session starts
/// — for a list whose lines stream, the producer's, each batch's and the last one's —, and their progress counts
/// each node once, with its final status.
@Suite struct SessionRunnersTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("runners-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The producer prints `a`, then waits (up to five minutes) until `a`'s item has run: that item runs in a
    /// batch while the producer runs.
    static let streamingWorkflow = """
        version: 1
        tasks:
          list:
            type: command
            argv: [sh, -c, "echo a; i=0; until test -e a.started; do i=$((i+1)); test $i -lt 3000 || exit 9; sleep 0.1; done; echo b"]
          each: { type: command, forEach: { from: list }, argv: [touch, "${item}.started"] }
          all: { type: command, gather: true, dependsOn: each, argv: ["true"] }
        """

    @Test(.timeLimit(.minutes(10))) func theRunnersOfAStreamedListCountEachNodeOnce() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try TestWorkflow.plan(
            Self.streamingWorkflow, registry: .builtIn, path: folder.appendingPathComponent("flow.yaml").path)
        let runners = LockedBox<[Runner]>([])
        var options = SessionOptions(stateDirectory: folder.appendingPathComponent("state").path)
        options.onRunnerStart = { runner in runners.withLock { $0.append(runner) } }
        let session = RunSession(plan: plan, options: options)
        // On a thread of its own: preparing runs the producer, blocking, while the batches run on the pool.
        let report = try await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Result { () throws(SessionError) in try session.run() })
            }
        }.get()
        #expect(
            report.nodes.map { "\($0.id) \($0.status.rawValue)" }
                == ["list succeeded", "each[a] succeeded", "each[b] succeeded", "all succeeded"])
        let started = runners.withLock { $0 }
        #expect(started.count >= 3, "the producer's runner, the first item's batch and the last runner")
        var counted: [NodeStatus: Int] = [:]
        for runner in started {
            for counts in runner.progress().values { counted.merge(counts, uniquingKeysWith: +) }
        }
        #expect(counted.filter { $0.value > 0 } == [.succeeded: 4], "the last runner counted the batches' nodes again")
    }
}
