import FlowBasics
import FlowKitTesting
import Foundation
import Testing

@testable import FlowKit

/// A ``RunSession`` used as an app embeds it: the store across runs, a dry run, a split run, and what it reports.
@Suite struct RunSessionTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    static let chain = """
        version: 1
        tasks:
          a: { type: sleep, duration: 1ms }
          b: { type: sleep, duration: 1ms, dependsOn: a }
          c: { type: noop, dependsOn: b }
        """

    static let items = """
        version: 1
        tasks:
          each: { type: sleep, duration: 1ms, forEach: [1, 2, 3, 4] }
          join: { type: noop, gather: true, dependsOn: each }
        """

    func plan(_ yaml: String) throws -> Plan {
        try TestWorkflow.plan(yaml, registry: .builtIn, path: folder.appendingPathComponent("flow.yaml").path)
    }

    /// Options with the store in the test's folder, collecting what the session tells.
    func options(_ told: LockedBox<[Diagnostic]>? = nil) -> SessionOptions {
        SessionOptions(stateDirectory: folder.appendingPathComponent("state").path) { diagnostic in
            told?.withLock { $0.append(diagnostic) }
        }
    }

    @Test func theSecondRunFindsEverythingInTheStore() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = RunSession(plan: try plan(Self.chain), options: options())
        let first = try await session.run()
        #expect(first.nodes.map(\.status) == [.succeeded, .succeeded, .succeeded])
        // The same session again: a watch loop's next turn.
        let second = try await session.run()
        #expect(second.nodes.map(\.status) == [.cached, .cached, .cached])
        #expect(second.exitCode == 0)
        #expect(try session.prepare().upToDateCount == 3)
        // Keyed by the store: the kept nodes by the same keys both times; nothing of a noop is kept.
        #expect(second.nodes.map(\.key) == first.nodes.map(\.key))
        #expect(second.nodes[0].key != nil && second.nodes[1].key != nil)

        var forced = options()
        forced.force = true
        let again = try await RunSession(plan: try plan(Self.chain), options: forced).run()
        #expect(again.nodes.map(\.status) == [.succeeded, .succeeded, .succeeded])

        var withoutStore = options()
        withoutStore.usesStore = false
        let prepared = try RunSession(plan: try plan(Self.chain), options: withoutStore).prepare()
        #expect(prepared.upToDateCount == 0)
        #expect(try await prepared.run().nodes.map(\.key) == [nil, nil, nil])
    }

    @Test func aDryRunDecidesWithoutRunningOrLocking() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = RunSession(plan: try plan(Self.chain), options: options())
        let cold = try session.preview()
        #expect(cold.plan.nodes.count == 3)
        #expect(cold.storeDirectory == folder.appendingPathComponent("state").path)
        #expect(cold.recordedResults == 0 && cold.decisions == nil && cold.nodesToRun == 3)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("state").path))

        _ = try await session.run()
        let warm = try session.preview()
        #expect(warm.recordedResults == 2)
        #expect(warm.nodesToRun == 0)
        #expect(warm.decisions?.causes == [nil, nil, nil])

        var rerun = options()
        rerun.rerun = ["b"]
        let decided = try RunSession(plan: try plan(Self.chain), options: rerun).preview()
        #expect(decided.decisions?.causes == [nil, .rerun(task: "b"), .rerun(task: "b")])
        #expect(decided.nodesToRun == 2)

        var withoutStore = options()
        withoutStore.usesStore = false
        let bare = try RunSession(plan: try plan(Self.chain), options: withoutStore).preview()
        #expect(bare.storeDirectory == nil && bare.nodesToRun == 3)
    }

    @Test func aStoreInUseStopsAnotherRunUntilTheRunHoldingItEnds() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try RunSession(plan: try plan(Self.chain), options: options()).prepare()
        let second = RunSession(plan: try plan(Self.chain), options: options())
        // After the lock's wait (5 s), nothing run.
        #expect {
            try second.prepare()
        } throws: { error in
            (error as? SessionError)?.code == .storeBusy
                && (error as? SessionError)?.message.hasPrefix("the store is in use by another flowrun (pid ") == true
        }
        #expect(try await first.run().nodes.map(\.status) == [.succeeded, .succeeded, .succeeded])
        // `first` is still there: its run ended, and so did its hold on the store.
        let report = try await second.run()
        #expect(report.nodes.map(\.status) == [.cached, .cached, .cached])
        withExtendedLifetime(first) {}
    }

    @Test func aTaskTheOptionsNameMustBeInThePlan() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = options()
        options.rerun = ["bb"]
        let session = RunSession(plan: try plan(Self.chain), options: options)
        let path = folder.appendingPathComponent("flow.yaml").path
        let expected = SessionError(.unknownTask, "--rerun names no task of \(path): 'bb' (did you mean 'b'?)")
        #expect(throws: expected) { try session.preview() }
        #expect(throws: expected) { try session.prepare() }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("state").path))
    }

    @Test func aDamagedJournalIsAWarningAndTheRunGoesOn() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try Data("version: 1\n".utf8).write(to: state.appendingPathComponent("flow.yaml.journal"))
        let told = LockedBox<[Diagnostic]>([])
        let report = try await RunSession(plan: try plan(Self.chain), options: options(told)).run()
        #expect(report.exitCode == 0)
        let diagnostics = told.withLock { $0 }
        #expect(diagnostics.map(\.severity) == [.warning])
        #expect(diagnostics.first?.message.hasPrefix("store \(state.path): ") == true)
        #expect(diagnostics.first?.message.contains("not one this flowrun writes") == true)
    }

    @Test func shardsRunTheirItemsAndTheGatherMergesThem() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let told = LockedBox<[Diagnostic]>([])
        func session(_ part: SessionPart.Request) throws -> RunSession {
            var options = options(told)
            options.part = part
            return RunSession(plan: try plan(Self.items), options: options)
        }
        let first = try await session(.shard(Shard(index: 1, count: 2))).run()
        #expect(first.nodes.map(\.id) == ["each[1]", "each[2]"])
        #expect(first.shard == (try Shard(index: 1, count: 2)))
        #expect(told.withLock { $0 } == [Diagnostic(.note, "shard 1/2: 2 nodes, items 0–1 of 'each'", at: nil)])
        #expect(
            FileManager.default.fileExists(
                atPath: folder.appendingPathComponent("state/shards/flow.yaml.shard-1-of-2.json").path))

        #expect {
            try session(.gather).preview()
        } throws: { error in
            (error as? SessionError)?.code == .shardsMissing
        }

        _ = try await session(.shard(Shard(index: 2, count: 2))).run()
        let gathered = try await session(.gather).run()
        #expect(gathered.nodes.map(\.id) == ["each[1]", "each[2]", "each[3]", "each[4]", "join"])
        #expect(gathered.nodes.map(\.status) == Array(repeating: .succeeded, count: 5))
        // Each shard resumes from its own journal.
        let again = try await session(.shard(Shard(index: 2, count: 2))).run()
        #expect(again.nodes.map(\.status) == [.cached, .cached])
    }
}
