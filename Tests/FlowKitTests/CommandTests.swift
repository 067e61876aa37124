import FlowBasics
import FlowKitTesting
import Foundation
import OrderedCollections
import TestSupport
import Testing

@testable import FlowKit

/// `command` with real programs from the base system (`/bin/echo`, `printf`, `tr`, `sh`, `sleep`).
@Suite struct CommandTests {
    // MARK: Helpers

    /// An upstream node that provides fixed bytes, standing in for a `fetch`.
    final class StubDataOperation: FlowOperation, DataProvider, @unchecked Sendable {
        private let payload: DataPayload

        init(_ bytes: Data) {
            payload = DataPayload(bytes, source: "stub")
            super.init(context: NodeContext(nodeID: "upstream", typeName: "stub"))
        }

        override func execute() { finish(.success(payload)) }
        var providedData: DataPayload? { output(as: DataPayload.self) }
    }

    private func command(
        _ argv: [String], env: [String: String] = [:], workingDirectory: String? = nil, stdin: Bool = false,
        maxOutputBytes: Int? = nil, directory: String = ".", grace: Duration = .milliseconds(200)
    ) -> CommandOperation {
        var values: [String: Value] = ["argv": .list(argv.map { .string($0) }), "stdin": .bool(stdin)]
        if !env.isEmpty {
            values["env"] = .map(OrderedDictionary(uniqueKeysWithValues: env.map { ($0.key, Value.string($0.value)) }))
        }
        if let workingDirectory { values["workingDirectory"] = .string(workingDirectory) }
        if let maxOutputBytes { values["maxOutputBytes"] = .int(maxOutputBytes) }
        let context = NodeContext(
            nodeID: "cmd", typeName: "command", parameters: ParameterValues(values), workflowDirectory: directory)
        return CommandOperation(context: context, terminationGrace: grace)
    }

    private func text(_ op: CommandOperation) -> String? {
        op.providedData.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// When `op` finishes, as its completion block sees it. Timing assertions use this rather than the moment
    /// the polling test notices: under a loaded parallel test run, the test's own turn on the pool can come
    /// seconds later, which says nothing about how fast the program was stopped.
    private func finishTime(of op: Operation) -> LockedBox<ContinuousClock.Instant?> {
        let finished = LockedBox<ContinuousClock.Instant?>(nil)
        op.completionBlock = { finished.withLock { $0 = ContinuousClock.now } }
        return finished
    }

    // MARK: Arguments and output

    @Test func argumentsArePassedVerbatim() async throws {
        let tricky = ["$(rm -rf /)", ";", "*", "\"quoted\"", "'single'", "a b", "`id`", "$HOME", "|", "&&", ""]
        let op = command(["printf", "[%s]\\n"] + tricky)
        await run(op)
        let expected = tricky.map { "[\($0)]\n" }.joined()
        #expect(text(op) == expected, "outcome: \(String(describing: op.outcome))")
    }

    @Test func absoluteExecutablePath() async throws {
        let op = command(["/bin/echo", "hello", "*"])
        await run(op)
        #expect(text(op) == "hello *\n")
        #expect(op.providedData?.source == "/bin/echo hello '*'")
    }

    @Test func stdinIsPipedFromUpstreamData() async throws {
        let upstream = StubDataOperation(Data("hello, flowrun\n".utf8))
        let op = command(["tr", "a-z", "A-Z"], stdin: true)
        await run(op, after: upstream)
        #expect(text(op) == "HELLO, FLOWRUN\n", "outcome: \(String(describing: op.outcome))")
    }

    @Test func largeStdinAndStdoutDoNotDeadlock() async throws {
        // Far more than a pipe buffer (64 KiB) each way, and a chatty stderr at the same time.
        let input = Data((0..<(4 << 20)).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        let upstream = StubDataOperation(input)
        let op = command(["sh", "-c", "tee /dev/stderr"], stdin: true)
        await run(op, after: upstream)
        #expect(op.providedData?.bytes == input, "outcome: \(String(describing: op.outcome))")
    }

    @Test func stdinWithoutDataDependencyFails() async throws {
        let failure = try #require(failureOf(await run(command(["cat"], stdin: true))))
        #expect(failure.code == .invalidInput)
    }

    @Test func stdinIsEmptyWhenNotRequested() async throws {
        let op = command(["cat"])  // would hang if it read the test runner's stdin
        await run(op)
        #expect(text(op) == "")
    }

    @Test func outputLargerThanMaxOutputBytesFails() async throws {
        let op = command(["sh", "-c", "yes flowrun"], maxOutputBytes: 100_000)
        let failure = try #require(failureOf(await run(op)))
        #expect(failure.code == .tooLarge)
        #expect(failure.message.contains("maxOutputBytes (100000 bytes)"))
    }

    // MARK: Failures

    @Test func nonZeroExitFailsWithStderrTail() async throws {
        let script = "for i in $(seq 1 30); do echo \"line $i\" >&2; done; exit 3"
        let failure = try #require(failureOf(await run(command(["sh", "-c", script]))))
        #expect(failure.code == .process)
        #expect(failure.message.hasPrefix("'sh' exited with status 3: …"))
        #expect(failure.message.hasSuffix("line 30"))
        #expect(failure.message.contains("line 11\n"))
        #expect(!failure.message.contains("line 10\n"))
    }

    @Test func nonZeroExitWithoutStderr() async throws {
        let failure = try #require(failureOf(await run(command(["false"]))))
        #expect(failure.message == "'false' exited with status 1 (nothing on standard error)")
    }

    @Test func deathBySignalFails() async throws {
        let failure = try #require(failureOf(await run(command(["sh", "-c", "echo dying >&2; kill -9 $$"]))))
        #expect(failure.code == .process)
        #expect(failure.message == "'sh' was killed by signal 9 (SIGKILL): dying")
    }

    @Test func missingExecutableFails() async throws {
        let failure = try #require(failureOf(await run(command(["flowrun-no-such-program-xyz", "a"]))))
        #expect(failure.code == .process)
        #expect(failure.message == "cannot run 'flowrun-no-such-program-xyz': command not found on PATH")
        let pathFailure = try #require(failureOf(await run(command(["./missing.sh"], directory: "/tmp"))))
        #expect(pathFailure.message.contains("no executable file at /tmp/missing.sh"))
    }

    // MARK: Environment and folders

    @Test func envIsAddedToTheInheritedEnvironment() async throws {
        let op = command(
            ["sh", "-c", "printf '%s|%s' \"$FLOWRUN_TEST_VALUE\" \"${PATH:+has-path}\""],
            env: ["FLOWRUN_TEST_VALUE": "x y $z"])
        await run(op)
        #expect(text(op) == "x y $z|has-path")
    }

    @Test func workingDirectoryIsResolvedAgainstTheWorkflowFolder() async throws {
        let directory = try TemporaryFolder()
        try directory.write("sub/marker.txt", Data("here".utf8))
        let op = command(["cat", "marker.txt"], workingDirectory: "sub", directory: directory.path)
        await run(op)
        #expect(text(op) == "here", "outcome: \(String(describing: op.outcome))")
        // Without the key, the program runs in the workflow's folder.
        let pwd = command(["pwd"], directory: directory.path)
        await run(pwd)
        let expected = URL(fileURLWithPath: directory.path).resolvingSymlinksInPath().path
        #expect(
            text(pwd).map { URL(fileURLWithPath: $0.trimmingCharacters(in: .newlines)).resolvingSymlinksInPath().path }
                == expected)
    }

    @Test func missingWorkingDirectoryFails() async throws {
        let failure = try #require(failureOf(await run(command(["true"], workingDirectory: "nope", directory: "/tmp"))))
        #expect(failure.code == .io)
        #expect(failure.message.contains("working directory 'nope'"))
    }

    // MARK: Cancellation

    @Test func timeoutKillsTheChild() async throws {
        let directory = try TemporaryFolder()
        // `exec`: the child becomes `sleep 300` once it has signalled that it runs. It runs under a name of its
        // own (a link to `sleep`) so that the zombie check below cannot see another test's `sleep`.
        let script = "ln -s \"$(command -v sleep)\" \(Self.probeName); echo ready > ready; exec ./\(Self.probeName) 300"
        let op = command(["sh", "-c", script], directory: directory.path)
        let queue = OperationQueue()
        let finished = finishTime(of: op)
        queue.addOperation(op)
        #expect(await waitUntil(.seconds(20)) { FileManager.default.fileExists(atPath: directory.path + "/ready") })
        let cancelled = ContinuousClock.now
        op.cancel(reason: .timedOut(.milliseconds(200)))
        #expect(await waitUntil(.seconds(40)) { finished.withLock { $0 } != nil })
        #expect(try #require(finished.withLock { $0 }) - cancelled < promptly)
        if case .cancelled? = op.outcome {
        } else {
            Issue.record("expected .cancelled, got \(String(describing: op.outcome))")
        }
        #expect(op.cancellationReason == .timedOut(.milliseconds(200)))
        // The operation finishes only after the child was reaped: no zombie is left behind.
        #expect(!zombieChildren().contains(Self.probeName))
    }

    /// The name `timeoutKillsTheChild` runs `sleep` under; no other test's child has it.
    private static let probeName = "reapprobe"

    /// The names of this process's children that have exited but were not reaped.
    private func zombieChildren() -> [String] {
        let me = String(getpid())
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> String? in
            guard entry.allSatisfy(\.isNumber),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // Fields after the command name: state, ppid, …
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, fields[0] == "Z", fields[1] == me else { return nil }
            return stat[..<close].split(separator: "(", maxSplits: 1).last.map(String.init)
        }
    }

    @Test func directChildIsStoppedBySIGTERM() async throws {
        // No shell in between: the program itself must be able to hear SIGTERM, whatever thread spawned it.
        let op = command(["sleep", "300.125"], grace: .seconds(30))
        let queue = OperationQueue()
        let finished = finishTime(of: op)
        queue.addOperation(op)
        #expect(await waitUntil(.seconds(20)) { !childProcesses(withArgument: "300.125").isEmpty })
        let cancelled = ContinuousClock.now
        op.cancel(reason: .timedOut(.milliseconds(100)))
        #expect(await waitUntil(.seconds(40)) { finished.withLock { $0 } != nil })
        let elapsed = try #require(finished.withLock { $0 }) - cancelled
        #expect(elapsed < promptly, "waited for the grace period: SIGTERM did not arrive")
    }

    @Test func childHandlingSIGTERMButRunningOnIsKilledAfterTheGracePeriod() async throws {
        let directory = try TemporaryFolder()
        // The shell catches SIGTERM and carries on; SIGKILL after the grace period ends it and its `sleep`.
        let script = "trap 'echo caught >&2' TERM; echo ready > ready; while :; do sleep 1; done"
        let op = command(["sh", "-c", script], directory: directory.path, grace: .milliseconds(200))
        let queue = OperationQueue()
        let finished = finishTime(of: op)
        queue.addOperation(op)
        #expect(await waitUntil(.seconds(20)) { FileManager.default.fileExists(atPath: directory.path + "/ready") })
        let cancelled = ContinuousClock.now
        op.cancel()
        #expect(await waitUntil(.seconds(40)) { finished.withLock { $0 } != nil })
        let elapsed = try #require(finished.withLock { $0 }) - cancelled
        #expect(elapsed >= .milliseconds(150), "outcome: \(String(describing: op.outcome))")
        #expect(elapsed < promptly)
        if case .cancelled? = op.outcome {
        } else {
            Issue.record("expected .cancelled, got \(String(describing: op.outcome))")
        }
    }

    @Test func childIgnoringSIGTERMIsKilledAtOnce() async throws {
        let directory = try TemporaryFolder()
        // `trap ''` makes SIGTERM ignored, which `exec` keeps: asking it to stop is pointless, so no grace period.
        let op = command(
            ["sh", "-c", "trap '' TERM; echo ready > ready; exec sleep 300"], directory: directory.path,
            grace: .seconds(30))
        let queue = OperationQueue()
        let finished = finishTime(of: op)
        queue.addOperation(op)
        #expect(await waitUntil(.seconds(20)) { FileManager.default.fileExists(atPath: directory.path + "/ready") })
        try await Task.sleep(for: .milliseconds(20))  // let `exec` happen
        let cancelled = ContinuousClock.now
        op.cancel()
        #expect(await waitUntil(.seconds(40)) { finished.withLock { $0 } != nil })
        #expect(try #require(finished.withLock { $0 }) - cancelled < promptly)
    }

    @Test func childStartsWithACleanSignalMask() async throws {
        let directory = try TemporaryFolder()
        let op = command(["cp", "/proc/self/status", "status.txt"], directory: directory.path)
        await run(op)
        let child = try String(contentsOfFile: directory.path + "/status.txt", encoding: .utf8)
        let mine = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        // Only signals this process ignores may stay blocked (standard signals, bits 0…30).
        let blocked = signalMask("SigBlk", in: child) & 0x7fff_ffff
        let ignoredHere = signalMask("SigIgn", in: mine)
        #expect(blocked & ~ignoredHere == 0, "child blocks \(String(blocked, radix: 16))")
    }

    private func signalMask(_ key: String, in status: String) -> UInt64 {
        let line = status.split(separator: "\n").first { $0.hasPrefix(key + ":") }
        return UInt64(line?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "", radix: 16) ?? 0
    }

    /// The pids of this process's children whose command line contains `argument`.
    private func childProcesses(withArgument argument: String) -> [String] {
        let me = String(getpid())
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { entry in
            guard entry.allSatisfy(\.isNumber),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"),
                let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return fields.count > 1 && fields[1] == me && arguments.contains(argument)
        }
    }

    @Test func cancelBeforeStartNeverSpawns() async throws {
        let directory = try TemporaryFolder()
        let op = command(["touch", "spawned"], directory: directory.path)
        op.cancel()
        await run(op)
        if case .cancelled? = op.outcome {} else { Issue.record("expected .cancelled") }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/spawned"))
    }

    @Test func concurrentSpawnsDoNotHoldEachOthersPipes() async throws {
        // Long and short programs started at the same time: a short one must not wait for a long one, as it
        // would if the long child had inherited the short one's pipes or exit-notification socket.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 16
        let long = (0..<6).map { _ in command(["sleep", "300"], grace: .milliseconds(100)) }
        let short = (0..<10).map { index in command(["/bin/echo", "short \(index)"]) }
        let finished = short.map(finishTime(of:))
        let started = ContinuousClock.now
        for (index, op) in short.enumerated() {
            if index < long.count { queue.addOperation(long[index]) }
            queue.addOperation(op)
        }
        #expect(await waitUntil(.seconds(40)) { finished.allSatisfy { $0.withLock { $0 } != nil } })
        // The long ones run 300 s; under a fully loaded parallel test run, spawning alone can take seconds.
        let last = try #require(finished.compactMap { $0.withLock { $0 } }.max())
        #expect(last - started < .seconds(25))
        for (index, op) in short.enumerated() { #expect(text(op) == "short \(index)\n") }
        for op in long { op.cancel() }
        #expect(await waitUntil(.seconds(40)) { long.allSatisfy(\.isFinished) })
    }

    // MARK: Registration

    @Test func commandIsBuiltIn() async throws {
        let type = try #require(TaskRegistry.builtIn["command"])
        #expect(type.provides == .data)
        #expect(type.consumes == .anything)
        #expect(type.parameter(named: "argv")?.isRequired == true)
    }
}
