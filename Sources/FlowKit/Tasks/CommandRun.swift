import Foundation
import Subprocess
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One run of a `command` node's program on swift-subprocess: spawns it in a process group of its own, feeds
/// its standard input, collects its output within the limit and the tail of its standard error, stops it when
/// cancelled, and reports one ``FlowOperation/Outcome`` once it has been reaped.
///
/// Subprocess spawns with close-on-exec pipes and a clean signal mask and dispositions, so concurrent runs do
/// not hold each other's pipes and every program can hear SIGTERM. Subprocess's teardown sequence stops the
/// group when reading fails or overflows; cancelling is ours, because a program that ignores SIGTERM is killed
/// at once instead of after the grace period, and flowrun's second Ctrl-C kills every group still running
/// (``killAll()``).
final class CommandRun: Sendable {
    /// How much of standard error to keep, for the failure message.
    static let stderrTailBytes = 8 * 1024

    /// The programs running now (each leads its process group), for ``killAll()``. A pid leaves the set as soon
    /// as Subprocess has reaped its program; Linux hands out pids in sequence, so the number is not reused in
    /// that instant.
    private static let running = Mutex<Set<pid_t>>([])

    /// Kills the process group of every program still running (see ``CommandTask/killRunningPrograms()``).
    static func killAll() {
        for pid in running.withLock({ $0 }) { signalGroup(pid, SIGKILL) }
    }

    private struct State: Sendable {
        var pid: pid_t?
        var exited = false
        var cancelled = false
        var stopping = false
    }

    /// Why reading stopped early.
    private enum Stop: Error {
        case overflowed
    }

    private let invocation: CommandInvocation
    private let stdinBytes: Data?
    private let maxOutputBytes: Int
    private let terminationGrace: Duration
    private let context: NodeContext
    private let state = Mutex(State())

    init(
        invocation: CommandInvocation, stdin: Data?, maxOutputBytes: Int, terminationGrace: Duration,
        context: NodeContext
    ) {
        self.invocation = invocation
        self.stdinBytes = stdin
        self.maxOutputBytes = maxOutputBytes
        self.terminationGrace = terminationGrace
        self.context = context
    }

    /// Runs the program to its end (or until cancelled) and says how the node ended.
    func run() async -> FlowOperation.Outcome {
        if state.withLock({ $0.cancelled }) { return .cancelled }
        var platform = PlatformOptions()
        platform.processGroupID = 0  // its own group: signals reach what it starts too (a `sh -c` pipeline)
        // When the reading fails or overflows, Subprocess stops the group itself: SIGTERM, then SIGKILL after the
        // grace period. Cancellation goes through ``stop()``, which also knows when SIGTERM would be ignored.
        platform.teardownSequence = [
            .send(signal: .terminate, toProcessGroup: true, allowedDurationToNextStep: terminationGrace)
        ]
        let configuration = Configuration(
            executable: .path(FilePath(invocation.executable)),
            arguments: Arguments(
                executablePathOverride: invocation.argv.first, remainingValues: Array(invocation.argv.dropFirst())),
            environment: .custom(
                Dictionary(
                    invocation.environment.compactMap { entry in
                        Environment.Key(rawValue: entry.key).map { ($0, entry.value) }
                    },
                    uniquingKeysWith: { _, last in last })),
            workingDirectory: FilePath(invocation.workingDirectory), platformOptions: platform)
        do {
            let result = try await Subprocess.run(
                configuration, input: .inputWriter, output: .sequence, error: .sequence
            ) { execution in
                try await communicate(with: execution)
            }
            ended()
            return outcome(result.terminationStatus, output: result.closureResult)
        } catch Stop.overflowed {
            ended()
            return .failure(
                context.failure(
                    .tooLarge,
                    "'\(invocation.programName)' wrote more than maxOutputBytes (\(maxOutputBytes) bytes) to standard output; it was stopped"
                ))
        } catch {
            ended()
            if state.withLock({ $0.cancelled }) { return .cancelled }
            return .failure(
                context.failure(
                    .process,
                    "cannot run '\(invocation.programName)' (\(invocation.executable)): \(Self.describe(error))",
                    cause: error))
        }
    }

    /// Cancels the run: stops the program; the outcome will be ``FlowOperation/Outcome/cancelled``.
    func cancel() {
        state.withLock { $0.cancelled = true }
        stop()
    }

    // MARK: While it runs

    /// What the program wrote: its standard output and the tail of its standard error.
    private struct Output: Sendable {
        var stdout = Data()
        var stderrTail = Data()
    }

    private func communicate(
        with execution: Execution<CustomWriteInput, SequenceOutput, SequenceOutput>
    ) async throws -> Output {
        let pid = execution.processIdentifier.value
        let cancelledEarly = state.withLock { state -> Bool in
            state.pid = pid
            Self.running.withLock { _ = $0.insert(pid) }
            return state.cancelled
        }
        if cancelledEarly { stop() }
        let feed = stdinBytes
        return try await withThrowingTaskGroup(of: Output?.self) { group in
            group.addTask {
                // A program that exits without reading all its input is not an error of ours: ignore EPIPE.
                if let feed { _ = try? await execution.standardInputWriter.write(feed) }
                try? await execution.standardInputWriter.finish()
                return nil
            }
            group.addTask { [self] in
                var collected = Data()
                let streamed = context.outputChunks
                for try await chunk in execution.standardOutput {
                    let start = collected.count
                    chunk.withUnsafeBytes { collected.append(contentsOf: $0) }
                    if collected.count > maxOutputBytes {
                        stop()
                        throw Stop.overflowed
                    }
                    streamed?(collected[start...])
                }
                return Output(stdout: collected)
            }
            group.addTask {
                // An array, not `Data`: `Data.suffix` is a slice that keeps (and appending grows) the whole
                // buffer, so endless stderr grew memory without bound. The array is cut in place.
                var tail: [UInt8] = []
                tail.reserveCapacity(2 * Self.stderrTailBytes)
                for try await chunk in execution.standardError {
                    chunk.withUnsafeBytes { bytes in
                        tail.append(contentsOf: bytes.suffix(Self.stderrTailBytes))
                        if tail.count > 2 * Self.stderrTailBytes {
                            tail.removeFirst(tail.count - Self.stderrTailBytes)
                        }
                    }
                }
                return Output(stderrTail: Data(tail.suffix(Self.stderrTailBytes)))
            }
            // Subprocess ends the reads once the program has exited, even if a grandchild keeps the pipes open.
            var output = Output()
            while let next = try await group.next() {
                guard let next else { continue }
                if !next.stdout.isEmpty { output.stdout = next.stdout }
                if !next.stderrTail.isEmpty { output.stderrTail = next.stderrTail }
            }
            return output
        }
    }

    /// Sends SIGTERM to the program's process group, then SIGKILL if it has not exited after the grace period;
    /// SIGKILL at once when the program ignores SIGTERM. Does nothing before the program started (``run()``
    /// calls it once it has) or once it has been reaped.
    private func stop() {
        let pid = state.withLock { state -> pid_t? in
            guard let pid = state.pid, !state.exited, !state.stopping else { return nil }
            state.stopping = true
            return pid
        }
        guard let pid else { return }
        guard !CommandSignals.ignores(SIGTERM, pid: pid) else { return Self.signalGroup(pid, SIGKILL) }
        Self.signalGroup(pid, SIGTERM)
        // A Dispatch timer rather than a sleeping task: it needs no thread of the cooperative pool.
        DispatchQueue.global().asyncAfter(deadline: .now() + terminationGrace.seconds) { [self] in
            // Only while the program is unreaped: after that its number could be reused.
            if state.withLock({ !$0.exited }) { Self.signalGroup(pid, SIGKILL) }
        }
    }

    /// The program has been reaped.
    private func ended() {
        state.withLock { state in
            state.exited = true
            if let pid = state.pid { Self.running.withLock { _ = $0.remove(pid) } }
        }
    }

    private static func signalGroup(_ pid: pid_t, _ signal: Int32) {
        if kill(-pid, signal) != 0 { kill(pid, signal) }
    }

    // MARK: Outcome

    private func outcome(_ status: TerminationStatus, output: Output) -> FlowOperation.Outcome {
        if state.withLock({ $0.cancelled }) { return .cancelled }
        let program = "'\(invocation.programName)'"
        let detail = CommandStderrTail.render(output.stderrTail)
        switch status {
        case .exited(0):
            return .success(DataPayload(output.stdout, source: invocation.displayName))
        case .exited(let code):
            return .failure(context.failure(.process, "\(program) exited with status \(code)\(detail)"))
        case .signaled(let signal):
            return .failure(
                context.failure(
                    .process,
                    "\(program) was killed by signal \(signal) (\(CommandStderrTail.signalName(signal)))\(detail)"))
        }
    }

    /// What the OS said about a failed spawn, in its own words.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? SubprocessError, let code = error.underlyingError?.rawValue {
            return String(cString: strerror(code))
        }
        return "\(error)"
    }
}
