import FlowKit
import Foundation
import Testing

/// `flowrun export slurm` on a real single-node Slurm cluster started on this machine by
/// `scripts/slurm-local.sh` (root, Debian's slurmctld slurmd slurm-client munge). Skipped, with the reason, where
/// the cluster cannot start — except in CI (`CI=true`) with Slurm installed, where that is a failure.
@Suite(.serialized) struct SlurmTests {
    static let script = SchemaTests.repository.appendingPathComponent("scripts/slurm-local.sh").path

    /// Runs a program to its end, up to `timeout` seconds; `nil` when it did not end (it is killed).
    static func shell(_ arguments: [String], timeout: TimeInterval = 60) throws -> (status: Int32, output: String)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let collected = LockedData()
        output.fileHandleForReading.readabilityHandler = { collected.append($0.availableData) }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            print("timed out: \(arguments.joined(separator: " ")): \(collected.text)")
            return nil
        }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        collected.append(output.fileHandleForReading.readDataToEndOfFile())
        return (process.terminationStatus, collected.text)
    }

    final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ more: Data) { lock.withLock { data.append(more) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    /// Starts the cluster with its state in `folder`; the reason it cannot, or `nil` once it is up.
    static func startCluster(in folder: String) async throws -> String? {
        guard getuid() == 0 else { return "not root: the local Slurm cluster needs root" }
        let started = try #require(
            try await offPool { try shell(["bash", script, "start", folder], timeout: 60) }, "slurm-local.sh start hung"
        )
        return started.status == 0 ? nil : started.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts the cluster with its state in `folder`, or cancels the test with the reason it cannot start (a
    /// failure in CI with Slurm installed). `false` when the test is to end (the failure is recorded).
    static func startClusterOrSkip(in folder: String) async throws -> Bool {
        guard let reason = try await startCluster(in: folder) else { return true }
        let installed = FileManager.default.isExecutableFile(atPath: "/usr/sbin/slurmctld")
        if ProcessInfo.processInfo.environment["CI"] == "true", installed {
            Issue.record("Slurm is installed but the local cluster did not start: \(reason)")
            return false
        }
        try Test.cancel("the local Slurm cluster cannot start here: \(reason)")
    }

    /// The states in which a job has ended (`scontrol show job` keeps them for `MinJobAge`, 300 s by default).
    static let endedStates: Set<String> = [
        "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
        "PREEMPTED",
    ]

    /// The state of every job (every array task) `ids` name, from `scontrol show job -o`; `nil` while the
    /// controller does not answer.
    static func states(of ids: [String]) throws -> [String]? {
        var states: [String] = []
        for id in ids {
            guard let shown = try shell(["scontrol", "show", "job", "-o", id]), shown.status == 0 else { return nil }
            for line in shown.output.split(separator: "\n") {
                guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("JobState=") }) else {
                    continue
                }
                states.append(String(field.dropFirst("JobState=".count)))
            }
        }
        return states
    }

    /// Submits `script` with the flowrun the tests built and waits, at most 120 s, until every job it submitted
    /// has ended; records an issue, with the jobs' logs, unless every one completed.
    /// - Returns: The script's output, with a line `NAME: job ID …` per job.
    static func submitAndWait(_ script: String, logs: String) async throws -> String {
        // The jobs run the flowrun the tests built, as the script's header says a user may override.
        let submitted = try #require(
            try await offPool { try shell(["env", "FLOWRUN=\(Flowrun.binary.path)", "bash", script]) })
        #expect(submitted.status == 0, "\(submitted.output)")
        let ids = submitted.output.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            return words.count >= 3 && words[1] == "job" ? String(words[2]) : nil
        }
        // Each job's own state, not its absence from squeue: a job squeue stops listing may still be finishing,
        // and an unanswered query is not an ended job.
        let deadline = Date(timeIntervalSinceNow: 120)
        var states: [String] = []
        repeat {
            if let now = try await offPool({ try Self.states(of: ids) }) {
                states = now
                if !states.isEmpty, states.allSatisfy(endedStates.contains) { break }
            }
            try await Task.sleep(for: .milliseconds(200))
        } while Date() < deadline
        if states.isEmpty || !states.allSatisfy({ $0 == "COMPLETED" }) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: logs).sorted()) ?? []
            let texts = names.map { name in
                "--- \(name)\n" + ((try? String(contentsOfFile: logs + "/" + name, encoding: .utf8)) ?? "")
            }
            let ended = "jobs \(ids) ended as \(states) (within 120 s: \(Date() < deadline))"
            Issue.record("\(ended)\n\(texts.joined(separator: "\n"))")
        }
        return submitted.output
    }

    @Test func theSubmitScriptRunsTheShardsAndTheGatherOnSlurm() async throws {
        let scratch = try Scratch()
        let state = scratch.path("slurm")
        guard try await Self.startClusterOrSkip(in: state) else { return }
        defer { _ = try? Self.shell(["bash", Self.script, "stop", state]) }

        let workflow = try ShardCommandTests.thumbnails(in: scratch)
        let local = try await Flowrun.runOffPool([workflow, "--param", "out=local", "--no-progress"])
        #expect(local.status == 0, "\(local.stderr)")
        let export = try await Flowrun.runOffPool([
            "export", "slurm", workflow, "--shards", "3", "--param", "out=cluster", "--partition", "debug",
        ])
        #expect(export.status == 0, "\(export.stderr)")
        try export.stdout.write(toFile: scratch.path("submit.sh"), atomically: true, encoding: .utf8)
        let submitted = try await Self.submitAndWait(
            scratch.path("submit.sh"), logs: scratch.path("w/.flowrun/slurm"))
        #expect(submitted.split(separator: "\n").count == 2, "\(submitted)")

        let logs = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path("w/.flowrun/slurm"))) ?? []
        #expect(logs.count == 4, "job logs: \(logs)")
        #expect(
            try ShardCommandTests.contents(of: scratch.path("w/cluster"))
                == ShardCommandTests.contents(of: scratch.path("w/local")))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: scratch.path("w/cluster.index")))
                == Data(contentsOf: URL(fileURLWithPath: scratch.path("w/local.index"))))
        let merged = try ShardCommandTests.decode(scratch.path("w/.flowrun/thumbs.yaml.report.json"))
        #expect(merged.nodes.count == 26)
        #expect(merged.nodes.allSatisfy { $0.status == .succeeded })
    }

    /// A list made at run time on Slurm: the lists job, three shards after it, the gather — every item once, the
    /// producer once, the gather's input in list order.
    @Test func aListMadeAtRunTimeIsSplitOnSlurm() async throws {
        let scratch = try Scratch()
        let state = scratch.path("slurm")
        guard try await Self.startClusterOrSkip(in: state) else { return }
        defer { _ = try? Self.shell(["bash", Self.script, "stop", state]) }

        let workflow = try RunTimeListShardTests.writeFlow(in: scratch)
        let export = try await Flowrun.runOffPool([
            "export", "slurm", workflow, "--shards", "3", "--partition", "debug",
        ])
        #expect(export.status == 0, "\(export.stderr)")
        try export.stdout.write(toFile: scratch.path("submit.sh"), atomically: true, encoding: .utf8)
        let submitted = try await Self.submitAndWait(
            scratch.path("submit.sh"), logs: scratch.path(".flowrun/slurm"))
        #expect(submitted.hasPrefix("lists: job "), "\(submitted)")

        let logs = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path(".flowrun/slurm"))) ?? []
        #expect(logs.count == 5, "job logs: \(logs)")
        func lines(_ name: String) throws -> [String] {
            try String(contentsOfFile: scratch.path(name), encoding: .utf8).split(separator: "\n").map(String.init)
        }
        #expect(try lines("produced.txt") == ["ran"])
        #expect(try lines("ran.txt").sorted() == RunTimeListShardTests.items.sorted())
        #expect(try lines("all.txt") == RunTimeListShardTests.items)
        let merged = try ShardCommandTests.decode(scratch.path(".flowrun/flow.yaml.report.json"))
        #expect(merged.nodes.map(\.id) == ["list"] + RunTimeListShardTests.items.map { "each[\($0)]" } + ["all"])
    }
}
