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

    /// A workflow that copies each `in/*.txt` to `out/STEM.txt` (`read` fetches it, `save` writes it), then the
    /// task lines `more` (indented as tasks).
    static func copyingWorkflow(then more: String = "") -> String {
        """
        version: 1
        tasks:
          read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
          save: { type: write, path: "out/${item.stem}.txt", dependsOn: read }

        """ + more
    }

    /// Writes `in/NAME.txt` holding `item NAME` for each name, the items of ``copyingWorkflow(then:)``.
    static func writeItems(_ names: [String], in scratch: Scratch) throws {
        for name in names { try scratch.write("in/\(name).txt", "item \(name)\n") }
    }
}

/// A program a workflow starts that writes its pid to a file (`echo $$ > NAME; exec …`), seen from the test.
struct ProgramPID {
    let pid: pid_t

    /// Waits up to 60 s for the file to hold a whole line.
    /// - Throws: When the program never wrote it.
    init(file path: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, (try? String(contentsOfFile: path, encoding: .utf8))?.last != "\n" {
            try await Task.sleep(for: .milliseconds(20))
        }
        pid = try #require(Int32((try String(contentsOfFile: path, encoding: .utf8)).dropLast()), "it never started")
    }

    /// Whether the program has ended, waiting up to 5 s for it to.
    func ended() async -> Bool {
        let gone = ContinuousClock.now + .seconds(5)
        while kill(pid, 0) == 0, ContinuousClock.now < gone { try? await Task.sleep(for: .milliseconds(20)) }
        return kill(pid, 0) == -1 && errno == ESRCH
    }
}

/// A started process (flowrun, or a shell that execs it) whose waits poll with `Task.sleep`.
///
/// Spawned with `posix_spawn` rather than `Foundation.Process`, so that it neither takes nor gives file
/// descriptors when other tests in this process spawn at the same moment: its pipes are close-on-exec from the
/// start, the child closes every inherited descriptor above 2, and there is no exit-notification socket to
/// leak (corelibs' `Process` computes the descriptors to close before spawning, so concurrent spawns can hold
/// each other's pipes and sockets open). It also starts with no signal blocked and every signal at its default,
/// as from a user's shell: spawned from a test thread (a Dispatch worker), it would inherit a mask that blocks
/// almost everything, and flowrun would never see SIGXFSZ. A thread per child waits for its exit and notes
/// the moment, so a busy test pool does not make flowrun look slow to exit.
final class Child: @unchecked Sendable {
    let pid: Int32
    private let lock = NSLock()
    private var stdoutData = Data(), stderrData = Data()
    private var stdoutEnded = false, stderrEnded = false
    private var exit: (status: Int32, signalled: Bool, at: ContinuousClock.Instant)?

    init(executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws {
        let out = try Self.pipe()
        let err = try Self.pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out.write, 1)
        posix_spawn_file_actions_adddup2(&actions, err.write, 2)
        Self.addCloseFrom3(&actions)
        if let directory { try Self.addChdir(&actions, directory.path) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let env =
            ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [
                nil
            ]
        defer { for pointer in argv + env { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable.path, &actions, &attributes, argv, env)
        close(out.write)
        close(err.write)
        guard status == 0 else {
            close(out.read)
            close(err.read)
            throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL)
        }
        self.pid = pid
        read(out.read) { child, data in
            if let data { child.stdoutData.append(data) } else { child.stdoutEnded = true }
        }
        read(err.read) { child, data in
            if let data { child.stderrData.append(data) } else { child.stderrEnded = true }
        }
        let spawned = pid
        let waiter = Thread { [self] in
            var status: Int32 = 0
            while waitpid(spawned, &status, 0) < 0, errno == EINTR {}
            let now = ContinuousClock.now
            let signalled = status & 0x7f != 0
            lock.withLock { exit = (signalled ? status & 0x7f : (status >> 8) & 0xff, signalled, now) }
        }
        waiter.name = "Child.wait"
        waiter.start()
    }

    /// Reads `fd` to its end on its own thread; `nil` data marks the end.
    private func read(_ fd: Int32, _ deliver: @escaping @Sendable (Child, Data?) -> Void) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let n = Glibc.read(fd, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                let data = Data(buffer[0..<n])
                lock.withLock { deliver(self, data) }
            }
            close(fd)
            lock.withLock { deliver(self, nil) }
        }
        thread.name = "Child.read"
        thread.start()
    }

    /// A pipe whose ends are close-on-exec from the start (`pipe2`), so no concurrently spawned child gets them.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") {
            guard unsafeBitCast(symbol, to: Pipe2.self)(&fds, O_CLOEXEC) == 0 else { throw POSIXError(.EMFILE) }
        } else {
            guard Glibc.pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        return (fds[0], fds[1])
    }

    /// Closes every descriptor above 2 in the child (glibc's `posix_spawn_file_actions_addclosefrom_np`).
    private static func addCloseFrom3(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(actions, 3)
        }
    }

    /// Starts the child in `path` (glibc's `posix_spawn_file_actions_addchdir_np`).
    private static func addChdir(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: String) throws {
        typealias Chdir =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else {
            throw POSIXError(.ENOSYS)
        }
        _ = unsafeBitCast(symbol, to: Chdir.self)(actions, path)
    }

    /// Starts the built flowrun.
    static func flowrun(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws
        -> Child
    {
        try Child(executable: Flowrun.binary, arguments, in: directory, environment: quiet.merging(environment) { $1 })
    }

    /// Progress lines come when the clock says, so a test asks for them (`--progress`, or this variable).
    static let quiet = ["FLOWRUN_PROGRESS": "none"]

    /// Starts `/bin/sh -c 'PREFIX exec flowrun ARGS REDIRECT'`, e.g. with `ulimit -f N;` as the prefix.
    static func flowrunInShell(prefix: String, _ arguments: [String], in directory: URL, redirect: String = "") throws
        -> Child
    {
        let quoted = ([Flowrun.binary.path] + arguments).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        return try Child(
            executable: URL(fileURLWithPath: "/bin/sh"),
            ["-c", prefix + " exec " + quoted.joined(separator: " ") + " " + redirect], in: directory,
            environment: quiet)
    }

    /// Starts flowrun under `/usr/bin/time` (when installed), for its own elapsed and CPU time and peak memory;
    /// see ``Measured``.
    static func measuredFlowrun(_ arguments: [String], in directory: URL) throws -> Child {
        let tool = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return try flowrun(arguments, in: directory) }
        return try Child(
            executable: URL(fileURLWithPath: tool),
            ["-f", Measured.marker + "%e %U %M", Flowrun.binary.path] + arguments, in: directory, environment: quiet)
    }

    var isRunning: Bool { lock.withLock { exit == nil } }
    /// When the process exited, as seen by its waiting thread.
    var exitedAt: ContinuousClock.Instant? { lock.withLock { exit?.at } }
    var stderrSoFar: String { lock.withLock { String(decoding: stderrData, as: UTF8.self) } }

    /// Sends a signal, unless the process has been reaped (its number could then belong to another).
    func signal(_ number: Int32) {
        lock.withLock { if exit == nil { kill(pid, number) } }
    }

    /// Waits until stderr contains `text`, up to `timeout`.
    func waitForStderr(containing text: String, timeout: Duration = .seconds(300)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if stderrSoFar.contains(text) { return true }
            if !isRunning { return stderrSoFar.contains(text) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        // Looked at once more: on a loaded machine the sleep above can outlast the deadline.
        return stderrSoFar.contains(text)
    }

    var stdoutSoFar: String { lock.withLock { String(decoding: stdoutData, as: UTF8.self) } }

    /// Waits until stdout contains `text`, up to `timeout`.
    func waitForStdout(containing text: String, timeout: Duration = .seconds(300)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if stdoutSoFar.contains(text) { return true }
            if !isRunning { return stdoutSoFar.contains(text) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return stdoutSoFar.contains(text)
    }

    /// Waits for the exit, up to `timeout`; kills the process (SIGKILL) and answers `nil` if it does not come.
    func wait(timeout: Duration = .seconds(600)) async -> Flowrun.Result? {
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        if isRunning {
            signal(SIGKILL)
            while isRunning { try? await Task.sleep(for: .milliseconds(5)) }
            return nil
        }
        // Both streams end with the process, unless a grandchild (a `command` program) kept them open: a
        // bounded wait then, never a blocked thread.
        let drainDeadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < drainDeadline, !lock.withLock({ stdoutEnded && stderrEnded }) {
            try? await Task.sleep(for: .milliseconds(2))
        }
        return lock.withLock {
            Flowrun.Result(
                status: exit?.status ?? -1, stdout: String(decoding: stdoutData, as: UTF8.self),
                stderr: String(decoding: stderrData, as: UTF8.self), terminatedBySignal: exit?.signalled ?? false)
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
        guard let line = result.stderr.split(separator: "\n").last(where: { $0.hasPrefix(Self.marker) }) else {
            return nil
        }
        let fields = line.dropFirst(Self.marker.count).split(separator: " ")
        guard fields.count == 3, let elapsed = Double(fields[0]), let user = Double(fields[1]),
            let peak = Int(fields[2])
        else { return nil }
        (self.elapsed, self.userCPU, self.peakKB) = (elapsed, user, peak)
    }
}

/// The `--report` JSON, read back.
struct ReportView {
    let json: [String: Any]
    let nodes: [[String: Any]]

    init(_ path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        json = try #require(
            try JSONSerialization.jsonObject(with: data) as? [String: Any], "the report is not a JSON object")
        nodes = try #require(json["nodes"] as? [[String: Any]], "the report has no nodes")
    }

    var interrupted: Bool? { json["interrupted"] as? Bool }
    var exitCode: Int? { json["exitCode"] as? Int }
    var ids: [String] { nodes.compactMap { $0["id"] as? String } }
    func node(_ id: String) -> [String: Any]? { nodes.first { $0["id"] as? String == id } }
    func status(_ id: String) -> String? { node(id)?["status"] as? String }
    func cause(_ id: String) -> String { node(id)?["cause"] as? String ?? "" }
    func attempts(_ id: String) -> Int? { node(id)?["attempts"] as? Int }

    static let finalStatuses: Set<String> = ["succeeded", "failed", "skipped", "cancelled", "cached"]

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
            if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
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
        if bytes[0] == 0xFF, bytes[1] == 0xD8 {
            return bytes[bytes.count - 2] == 0xFF && bytes[bytes.count - 1] == 0xD9
        }
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
