import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One run of a `command` node's program: spawns it with `Foundation.Process`, pumps its pipes on their own
/// threads, stops it on cancellation, and reports one ``FlowOperation/Outcome`` once the program has been
/// reaped and its output read.
///
/// Process groups: corelibs spawns every child with `POSIX_SPAWN_SETPGROUP`, so the child leads its own
/// group and signals go to `-pid`, reaching whatever it started too (a `sh -c` pipeline), not just the child.
/// Reaping: corelibs' process manager thread `waitpid`s every child, so a child that exits never lingers as
/// a zombie; this class only has to make sure the child does exit when the node is cancelled.
final class CommandRun: Sendable {
    /// How long to keep reading after the program exited, for pipes a grandchild still holds open.
    static let drainGrace: Duration = .milliseconds(500)

    /// Serializes pipe creation and spawning across all runs in the process.
    ///
    /// Why: corelibs closes inherited descriptors in the child from a list computed before `posix_spawn`, and
    /// `Pipe()` makes descriptors without close-on-exec. Two runs spawning at once could each leak their pipes
    /// (and corelibs' own exit-notification socket) into the other's child, which would then hold them open:
    /// no end of file on output, and the exit seen only when the other child exits (observed as a 2 s stall).
    /// Under this lock, a run's descriptors are created close-on-exec and spawned before any other run
    /// computes its list. A spawn takes a few milliseconds.
    private static let spawnLock = Mutex(())

    /// The programs running now (each leads its process group), for ``killAll()``. A pid is added while the
    /// program is unreaped and removed when it is, both under the run's state lock, so a number the kernel
    /// could reuse is never in the set.
    private static let running = Mutex<Set<Int32>>([])

    /// Kills the process group of every program still running (see ``CommandTask/killRunningPrograms()``).
    static func killAll() {
        for pid in running.withLock({ $0 }) { signalGroup(pid, SIGKILL) }
    }

    private struct State: Sendable {
        /// Held until the program exits, so the termination handler stays registered.
        var process: Process?
        var pid: Int32 = 0
        var exit: (reason: Process.TerminationReason, status: Int32)?
        var cancelled = false
        var stopping = false
    }

    /// The pipe pumps, made when the program is spawned.
    private struct Streams: Sendable {
        var stdout: PipeReader
        var stderr: PipeReader
        var stdin: PipeWriter?
    }

    private let invocation: CommandInvocation
    private let stdinBytes: Data?
    private let maxOutputBytes: Int
    private let terminationGrace: Duration
    private let context: NodeContext
    private let completion: @Sendable (FlowOperation.Outcome) -> Void
    private let state = Mutex(State())
    private let streams = Mutex<Streams?>(nil)
    /// Left by the two readers and the termination handler; the outcome is decided when all three are done.
    private let pending = DispatchGroup()

    /// Creates a run; `completion` is called exactly once, on any thread.
    init(
        invocation: CommandInvocation, stdin: Data?, maxOutputBytes: Int, terminationGrace: Duration,
        context: NodeContext, completion: @escaping @Sendable (FlowOperation.Outcome) -> Void
    ) {
        self.invocation = invocation
        self.stdinBytes = stdin
        self.maxOutputBytes = maxOutputBytes
        self.terminationGrace = terminationGrace
        self.context = context
        self.completion = completion
    }

    /// Spawns the program and starts the pipe threads; a failure to spawn is reported through `completion`.
    func start() {
        pending.enter()  // left by the termination handler
        let spawned = Self.spawnLock.withLock { _ in spawn() }
        let process: Process
        let streams: Streams
        switch spawned {
        case .success(let launched):
            (process, streams) = launched
        case .failure(let error):
            pending.leave()
            return completion(
                .failure(
                    context.failure(
                        .process,
                        "cannot run '\(invocation.programName)' (\(invocation.executable)): "
                            + error.localizedDescription,
                        cause: error)))
        }
        let pid = process.processIdentifier
        let cancelledEarly = state.withLock { state -> Bool in
            if state.exit == nil {
                state.process = process
                Self.running.withLock { _ = $0.insert(pid) }
            }
            state.pid = pid
            return state.cancelled
        }
        self.streams.withLock { $0 = streams }
        let label = "flowrun.command.\(context.nodeID)"
        pending.enter()
        streams.stdout.start(name: label + ".stdout") { [pending] in pending.leave() }
        pending.enter()
        streams.stderr.start(name: label + ".stderr") { [pending] in pending.leave() }
        // The writer is not waited for: once the program has exited, its input no longer matters.
        streams.stdin?.start(name: label + ".stdin") {}
        pending.notify(queue: .global()) { [self] in
            completion(outcome())
        }
        if cancelledEarly { stop() }
    }

    /// Makes the pipes and spawns the program; called under ``spawnLock``.
    private func spawn() -> Result<(Process, Streams), any Error> {
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        let stdinPipe = stdinBytes.map { _ in Pipe() }
        for pipe in [stdoutPipe, stderrPipe] + (stdinPipe.map { [$0] } ?? []) {
            // The child gets its ends through dup2, which clears the flag; no other child gets them at all.
            _ = fcntl(pipe.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: invocation.executable)
        process.arguments = Array(invocation.argv.dropFirst())
        process.environment = invocation.environment
        process.currentDirectoryURL = URL(fileURLWithPath: invocation.workingDirectory, isDirectory: true)
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = stdinPipe ?? FileHandle.nullDevice
        process.terminationHandler = { [self] process in
            exited(reason: process.terminationReason, status: process.terminationStatus)
        }
        // See `CommandSignals`: spawned from this (Dispatch) thread, the program would inherit a blocked mask.
        let launched: Result<Void, any Error> = CommandSignals.withCleanMask { Result { try process.run() } }
        return launched.map {
            // Past maxOutputBytes the program is stopped; the outcome then reports the overflow.
            let stdout = PipeReader(stdoutPipe.fileHandleForReading, mode: .collect(limit: maxOutputBytes)) {
                [weak self] in self?.stop()
            }
            let stderr = PipeReader(stderrPipe.fileHandleForReading, mode: .tail(bytes: 8 * 1024))
            var writer: PipeWriter?
            if let stdinPipe, let stdinBytes { writer = PipeWriter(stdinPipe.fileHandleForWriting, bytes: stdinBytes) }
            return (process, Streams(stdout: stdout, stderr: stderr, stdin: writer))
        }
    }

    /// Cancels the run: stops the program; the outcome will be ``FlowOperation/Outcome/cancelled``.
    func cancel() {
        state.withLock { $0.cancelled = true }
        stop()
    }

    /// Sends SIGTERM to the program's process group, then SIGKILL if it has not exited after the grace period;
    /// SIGKILL at once when the program ignores SIGTERM (as it does when it inherited flowrun's SIG_IGN).
    /// Does nothing before the program started (``start()`` calls it again) or once it has exited.
    private func stop() {
        let pid = state.withLock { state -> Int32? in
            guard state.pid > 0, state.exit == nil, !state.stopping else { return nil }
            state.stopping = true
            return state.pid
        }
        guard let pid else { return }
        guard !CommandSignals.ignores(SIGTERM, pid: pid) else { return Self.signalGroup(pid, SIGKILL) }
        Self.signalGroup(pid, SIGTERM)
        let grace = terminationGrace
        DispatchQueue.global().asyncAfter(deadline: .now() + grace.timeInterval) { [self] in
            // Only while the child is unreaped: after `waitpid` the number could in principle be reused.
            if state.withLock({ $0.exit == nil }) { Self.signalGroup(pid, SIGKILL) }
        }
    }

    private func exited(reason: Process.TerminationReason, status: Int32) {
        state.withLock { state in
            state.exit = (reason, status)
            state.process = nil
            Self.running.withLock { _ = $0.remove(state.pid) }
        }
        // Output written just before exit is still in the pipes; read it, but do not wait for ever on pipes
        // that a grandchild inherited.
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.drainGrace.timeInterval) { [self] in
            guard let streams = streams.withLock({ $0 }) else { return }
            streams.stdout.abandon()
            streams.stderr.abandon()
            streams.stdin?.abandon()
        }
        pending.leave()
    }

    private static func signalGroup(_ pid: Int32, _ signal: Int32) {
        if kill(-pid, signal) != 0 { kill(pid, signal) }
    }

    // MARK: Outcome

    private func outcome() -> FlowOperation.Outcome {
        let (cancelled, exit) = state.withLock { ($0.cancelled, $0.exit) }
        if cancelled { return .cancelled }
        guard let streams = streams.withLock({ $0 }) else {
            return .failure(context.failure(.internalError, "'\(invocation.programName)' ended before it started"))
        }
        let (stdout, stderr) = (streams.stdout, streams.stderr)
        let program = "'\(invocation.programName)'"
        if stdout.overflowed {
            let limit = maxOutputBytes
            return .failure(
                context.failure(
                    .tooLarge,
                    "\(program) wrote more than maxOutputBytes (\(limit) bytes) to standard output; it was stopped"))
        }
        guard let exit else {
            return .failure(context.failure(.internalError, "\(program) ended without an exit status"))
        }
        let detail = CommandStderrTail.render(stderr.bytes)
        switch exit.reason {
        case .exit where exit.status == 0:
            return .success(DataPayload(stdout.bytes, source: invocation.displayName))
        case .exit:
            return .failure(context.failure(.process, "\(program) exited with status \(exit.status)\(detail)"))
        case .uncaughtSignal:
            return .failure(
                context.failure(
                    .process,
                    "\(program) was killed by signal \(exit.status) (\(CommandStderrTail.signalName(exit.status)))"
                        + detail
                ))
        @unknown default:
            return .failure(context.failure(.process, "\(program) ended abnormally (status \(exit.status))\(detail)"))
        }
    }
}

extension Duration {
    /// The duration in seconds, for Dispatch deadlines.
    fileprivate var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
