import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The fault tests that keep a core busy for seconds (random signals over a 60-photo run, million-item lists):
/// nested here, they run one at a time rather than alongside each other on a 2-core machine.
@Suite(.serialized) enum FaultHeavyTests {}

/// Helpers for the fault-injection, signal and abuse tests: the bundled photos, a process runner whose waits
/// suspend (instead of blocking one of the few Dispatch threads of a 2-core machine), output-folder audits and
/// report parsing.
enum Fixtures {
    /// The package root (this file is `Tests/FlowrunCLITests/FaultSupport.swift`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let photoNames = ["aitzgorri", "friends", "seeding", "sunset", "wine"]

    /// The bytes of `examples/photos/NAME.jpg`.
    static func photo(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent("examples/photos/\(name).jpg"))
    }

    static func photoPath(_ name: String) -> String { root.appendingPathComponent("examples/photos/\(name).jpg").path }
}

/// A started process (flowrun, or a shell that execs it) whose waits poll with `Task.sleep`.
final class Child: @unchecked Sendable {
    let process = Process()
    private let out = Pipe(), err = Pipe()
    private let lock = NSLock()
    private var stdoutData = Data(), stderrData = Data()
    private var exitTime: ContinuousClock.Instant?
    private var stdoutEnded = false, stderrEnded = false

    init(executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = out
        process.standardError = err
        // Close-on-exec, so that no other test's child (spawned at the same moment) inherits these pipes and holds
        // them open; this child gets its ends through dup2, which clears the flag.
        for pipe in [out, err] {
            _ = fcntl(pipe.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        // An empty read is the end of the stream.
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock {
                if data.isEmpty { self?.stdoutEnded = true } else { self?.stdoutData.append(data) }
            }
            if data.isEmpty { handle.readabilityHandler = nil }
        }
        err.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock {
                if data.isEmpty { self?.stderrEnded = true } else { self?.stderrData.append(data) }
            }
            if data.isEmpty { handle.readabilityHandler = nil }
        }
        // Noted on Foundation's own thread, so a busy test pool (2 cores, tests that block its threads) does not
        // make flowrun look slow to exit.
        process.terminationHandler = { [weak self] _ in
            let now = ContinuousClock.now
            self?.lock.withLock { self?.exitTime = now }
        }
        let process = self.process
        try Self.withCleanSignalMask { try process.run() }
    }

    /// Runs `body` on a fresh thread with no signal blocked, and waits for it.
    ///
    /// A child inherits the signal mask of the thread that spawns it, and the threads async tests run on (Dispatch
    /// workers) block almost every signal: spawned from one, flowrun would never see SIGXFSZ (or a Ctrl-C a
    /// user's shell sends) the way it does when a user starts it.
    static func withCleanSignalMask(_ body: @escaping @Sendable () throws -> Void) throws {
        let failure = LockedError()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var empty = sigset_t()
            sigemptyset(&empty)
            pthread_sigmask(SIG_SETMASK, &empty, nil)
            do { try body() } catch { failure.set(error) }
            done.signal()
        }
        thread.start()
        done.wait()
        if let error = failure.get() { throw error }
    }

    /// Starts the built flowrun.
    static func flowrun(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws -> Child {
        try Child(executable: Flowrun.binary, arguments, in: directory, environment: environment)
    }

    /// Starts `/bin/sh -c 'PREFIX exec flowrun ARGS'`, e.g. with `ulimit -f N;` as the prefix.
    static func flowrunInShell(prefix: String, _ arguments: [String], in directory: URL, redirect: String = "") throws -> Child {
        let quoted = ([Flowrun.binary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return try Child(executable: URL(fileURLWithPath: "/bin/sh"),
                         ["-c", prefix + " exec " + quoted.joined(separator: " ") + " " + redirect], in: directory)
    }

    var pid: Int32 { process.processIdentifier }
    /// When the process exited, as seen by Foundation's process monitor.
    var exitedAt: ContinuousClock.Instant? { lock.withLock { exitTime } }

    /// Starts flowrun under `/usr/bin/time` (when installed), for its own elapsed and CPU time and peak memory;
    /// see ``Measured``.
    static func measuredFlowrun(_ arguments: [String], in directory: URL) throws -> Child {
        let tool = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return try flowrun(arguments, in: directory) }
        return try Child(executable: URL(fileURLWithPath: tool),
                         ["-f", Measured.marker + "%e %U %M", Flowrun.binary.path] + arguments, in: directory)
    }
    var stderrSoFar: String { lock.withLock { String(decoding: stderrData, as: UTF8.self) } }
    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits until stderr contains `text`, up to `timeout`.
    func waitForStderr(containing text: String, timeout: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if stderrSoFar.contains(text) { return true }
            if !process.isRunning { return stderrSoFar.contains(text) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Waits for the exit, up to `timeout`; kills the process (SIGKILL) and answers `nil` if it does not come.
    func wait(timeout: Duration = .seconds(60)) async -> Flowrun.Result? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try? await Task.sleep(for: .milliseconds(5)) }
            return nil
        }
        let noticed = ContinuousClock.now
        // Never a blocking read: wait (suspended) for both streams to end; a grandchild that kept them open
        // (a `command` program) only costs this bounded wait, not a test-pool thread.
        let drainDeadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < drainDeadline, !lock.withLock({ stdoutEnded && stderrEnded && exitTime != nil }) {
            try? await Task.sleep(for: .milliseconds(2))
        }
        out.fileHandleForReading.readabilityHandler = nil
        err.fileHandleForReading.readabilityHandler = nil
        return lock.withLock {
            // The termination handler may not have run (or not yet): then the moment the exit was seen here.
            if exitTime == nil { exitTime = noticed }
            return Flowrun.Result(
                status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                stderr: String(decoding: stderrData, as: UTF8.self),
                terminatedBySignal: process.terminationReason == .uncaughtSignal)
        }
    }

    /// Runs flowrun to completion (60 s at most).
    static func runFlowrun(_ arguments: [String], in directory: URL? = nil) async throws -> Flowrun.Result {
        let child = try flowrun(arguments, in: directory)
        return try #require(await child.wait(), "flowrun \(arguments.joined(separator: " ")) did not finish")
    }
}

/// What `/usr/bin/time` measured of a process itself: immune to how busy the test process is.
struct Measured {
    static let marker = "flowrun-measured: "
    var elapsed: Double
    var userCPU: Double
    var peakKB: Int

    /// The measurement in a result's stderr, if it ran under ``Child/measuredFlowrun(_:in:)``.
    init?(_ result: Flowrun.Result) {
        guard let line = result.stderr.split(separator: "\n").last(where: { $0.hasPrefix(Self.marker) }) else { return nil }
        let fields = line.dropFirst(Self.marker.count).split(separator: " ")
        guard fields.count == 3, let elapsed = Double(fields[0]), let user = Double(fields[1]), let peak = Int(fields[2])
        else { return nil }
        (self.elapsed, self.userCPU, self.peakKB) = (elapsed, user, peak)
    }
}

/// An error handed from one thread to another.
final class LockedError: @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?
    func set(_ error: any Error) { lock.withLock { self.error = error } }
    func get() -> (any Error)? { lock.withLock { error } }
}

/// The `--report` JSON, read back.
struct ReportView {
    let json: [String: Any]
    let nodes: [[String: Any]]

    init(_ path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "the report is not a JSON object")
        nodes = try #require(json["nodes"] as? [[String: Any]], "the report has no nodes")
    }

    var interrupted: Bool? { json["interrupted"] as? Bool }
    var exitCode: Int? { json["exitCode"] as? Int }
    var ids: [String] { nodes.compactMap { $0["id"] as? String } }
    func node(_ id: String) -> [String: Any]? { nodes.first { $0["id"] as? String == id } }
    func status(_ id: String) -> String? { node(id)?["status"] as? String }
    func cause(_ id: String) -> String { node(id)?["cause"] as? String ?? "" }
    func attempts(_ id: String) -> Int? { node(id)?["attempts"] as? Int }

    static let finalStatuses: Set<String> = ["succeeded", "failed", "skipped", "cancelled"]

    /// Nodes whose status is missing or not final.
    var unfinished: [String] {
        nodes.filter { !Self.finalStatuses.contains($0["status"] as? String ?? "") }.map { "\($0["id"] ?? "?")" }
    }
}

/// What is in an output folder, recursively, dotfiles included.
enum OutputFolder {
    /// Every regular file (relative paths), hidden ones included.
    static func files(in folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(name)
            }
        }
        return files.sorted()
    }

    /// Files that should never be left: temporaries (`.flowrun-*`), any other dotfile.
    static func strays(in folder: String) -> [String] {
        files(in: folder).filter { ($0 as NSString).lastPathComponent.hasPrefix(".") || $0.contains(".flowrun-") }
    }

    /// Whether the file is a complete JPEG (SOI … EOI) or PNG (signature … IEND chunk).
    static func looksComplete(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path), data.count > 16 else { return false }
        let bytes = [UInt8](data)
        if bytes[0] == 0xFF, bytes[1] == 0xD8 { return bytes[bytes.count - 2] == 0xFF && bytes[bytes.count - 1] == 0xD9 }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return bytes.suffix(8).starts(with: Array("IEND".utf8)) }
        return false
    }

    /// Decodes every file with flowrun itself (fetch → decode); returns the result of that run.
    static func decodeAll(_ paths: [String], scratch: URL) async throws -> Flowrun.Result {
        let list = paths.map { "\"\($0)\"" }.joined(separator: ", ")
        let workflow = scratch.appendingPathComponent("verify-\(UUID().uuidString).yaml")
        try """
            version: 1
            tasks:
              read: { type: fetch, forEach: [\(list)], url: "${item}" }
              check: { type: decode, dependsOn: read }
            """.write(to: workflow, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: workflow) }
        return try await Child.runFlowrun([workflow.path, "--no-progress"])
    }
}

/// SplitMix64: a seeded generator, so a failing random schedule can be replayed (`FLOWRUN_FAULT_SEED=…`).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed from `FLOWRUN_FAULT_SEED`, or a fresh one.
    static func seed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["FLOWRUN_FAULT_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 1...UInt64(UInt32.max))
    }
}
