import FlowKitTesting
import Foundation
import Testing

@testable import FlowKit

/// ``RunCancellation`` as an app uses it: it cancels the producer of a list made at run time, which runs while the
/// session prepares (before any ``PreparedRun`` exists), and everything the session starts after.
@Suite struct RunCancellationTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cancellation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// A producer that says it started (the file `started`), then prints nothing for five minutes: far longer than
    /// the test waits for it to be stopped, so a test thread that a loaded machine runs late still sees the
    /// cancellation, not the producer's own end.
    static let slowProducer = """
        version: 1
        tasks:
          list: { type: command, argv: [sh, -c, "touch started; exec sleep 3600"] }
          each: { type: command, forEach: { from: list }, argv: [echo, "${item}"] }
        """

    private func session(_ cancellation: RunCancellation) throws -> RunSession {
        let plan = try TestWorkflow.plan(
            Self.slowProducer, registry: .builtIn, path: folder.appendingPathComponent("flow.yaml").path)
        var options = SessionOptions(stateDirectory: folder.appendingPathComponent("state").path)
        options.cancellation = cancellation
        return RunSession(plan: plan, options: options)
    }

    /// Prepares and runs on a thread of its own: preparing runs the producer, blocking.
    private func prepareAndRun(_ session: RunSession) async -> Result<RunReport, SessionError> {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Result { () throws(SessionError) in try session.prepare().run() })
            }
        }
    }

    @Test(.timeLimit(.minutes(10))) func cancellingWhileTheProducerRunsStopsItAndEndsTheRunInterrupted() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cancellation = RunCancellation()
        let started = ContinuousClock.now
        async let outcome = prepareAndRun(try session(cancellation))
        let startedFile = folder.appendingPathComponent("started").path
        while !FileManager.default.fileExists(atPath: startedFile), ContinuousClock.now - started < .seconds(300) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(cancellation.cancel(), "the producer's runner had started")
        let report = try await outcome.get()
        #expect(ContinuousClock.now - started < .seconds(540), "the producer ran on instead of being stopped")
        #expect(report.interrupted)
        #expect(report.exitCode == 130)
        #expect(report.nodes.map { "\($0.id) \($0.status.rawValue)" } == ["list cancelled"])
    }

    @Test func cancellingBeforeTheSessionStartsRunsNothing() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cancellation = RunCancellation()
        #expect(!cancellation.cancel(), "nothing had started")
        #expect(cancellation.isCancelled)
        let report = try await prepareAndRun(try session(cancellation)).get()
        #expect(report.interrupted)
        #expect(report.nodes.map { "\($0.id) \($0.status.rawValue)" } == ["list cancelled"])
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("started").path))
    }
}
