import Foundation
import TestSupport
import Testing

/// Runs the built `flowrun` binary and collects what it printed, like a user at a terminal would see it.
struct Flowrun {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var terminatedBySignal: Bool
    }

    /// The `flowrun` next to the test bundle (SwiftPM builds it because the test target depends on it).
    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["FLOWRUN_BINARY"] { return URL(fileURLWithPath: path) }
        var directory = Bundle.main.bundleURL
        if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("flowrun")
    }()

    /// A process that has been started; for tests that signal it.
    final class Running: @unchecked Sendable {
        let process = Process()
        private let out = Pipe(), err = Pipe()
        private let lock = NSLock()
        private var stdoutData = Data(), stderrData = Data()

        /// Left when both pipes reach their end: every byte flowrun wrote has been appended.
        private let drained = DispatchGroup()

        init(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws {
            process.executableURL = Flowrun.binary
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = directory }
            // Progress lines come when the clock says, so a test asks for them (`--progress`, or this variable).
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["FLOWRUN_PROGRESS": "none"].merging(environment) { $1 }
            ) { $1 }
            process.standardOutput = out
            process.standardError = err
            try process.run()
            drain(out) { [self] data in lock.withLock { stdoutData.append(data) } }
            drain(err) { [self] data in lock.withLock { stderrData.append(data) } }
        }

        /// Reads a pipe to its end on a thread of its own. A `readabilityHandler` would lose bytes: one that has
        /// read a chunk but not yet appended it when the handler is removed appends after the result is made.
        private func drain(_ pipe: Pipe, into append: @escaping @Sendable (Data) -> Void) {
            drained.enter()
            Thread { [drained] in
                let handle = pipe.fileHandleForReading
                while case let data = handle.availableData, !data.isEmpty { append(data) }
                drained.leave()
            }.start()
        }

        var stderrSoFar: String { lock.withLock { String(decoding: stderrData, as: UTF8.self) } }

        /// Waits until stderr contains `text`, up to `timeout` seconds.
        func waitForStderr(containing text: String, timeout: TimeInterval = 300) -> Bool {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while Date() < deadline {
                if stderrSoFar.contains(text) { return true }
                usleep(10_000)
            }
            return false
        }

        func signal(_ number: Int32) { kill(process.processIdentifier, number) }

        /// Waits for the exit, up to `timeout` seconds; kills the process if it does not come.
        func wait(timeout: TimeInterval = 600) -> Result? {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while process.isRunning, Date() < deadline { usleep(5_000) }
            if process.isRunning {
                process.terminate()
                return nil
            }
            process.waitUntilExit()
            // A program a `command` node left running may hold the pipes open; what came before is kept.
            _ = drained.wait(timeout: .now() + 10)
            return lock.withLock {
                Result(
                    status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                    stderr: String(decoding: stderrData, as: UTF8.self),
                    terminatedBySignal: process.terminationReason == .uncaughtSignal)
            }
        }
    }

    /// Runs flowrun to completion.
    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws
        -> Result
    {
        let running = try Running(arguments, in: directory, environment: environment)
        return try #require(running.wait(), "flowrun \(arguments.joined(separator: " ")) did not finish")
    }
}

/// The end-to-end tests' name for the shared ``TemporaryFolder``.
typealias Scratch = TemporaryFolder

extension Flowrun {
    /// Runs flowrun to completion from an async test, waiting on a thread of its own: a test that blocks takes
    /// one of the cooperative pool's threads — two on a 2-core machine — and starves the async tests beside it.
    static func runOffPool(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:])
        async throws -> Result
    {
        try await offPool { try run(arguments, in: directory, environment: environment) }
    }
}

/// Runs a program to its end and returns its exit status and what it printed, stdout and stderr interleaved.
/// - Parameters:
///   - executable: The program's path, e.g. `/usr/bin/python3`.
///   - arguments: Its arguments.
func runToEnd(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}

/// Runs blocking work (waiting for processes) on a thread of its own rather than the cooperative pool's.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
    }
}
