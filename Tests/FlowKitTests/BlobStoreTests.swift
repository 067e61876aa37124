import FlowBasics
import FlowKitTesting
import Foundation
import Testing

@testable import FlowKit

/// Stored outputs: blobs written and read back, damage found, decisions that restore, and restored nodes in a run.
@Suite struct BlobStoreTests {
    let folder: String
    let blobs: BlobStore

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blobs-\(UUID().uuidString)").path
        blobs = BlobStore(storeDirectory: folder)
    }

    static let payload = DataPayload(Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }), source: "in.bin")

    func expectSame(_ value: any StorableOutput, _ expected: DataPayload) {
        let payload = value as? DataPayload
        #expect(payload?.bytes == expected.bytes)
        #expect(payload?.source == expected.source)
    }

    @Test func aBlobIsNamedByItsContentAndReadsBackAsWritten() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reference = try blobs.write(Self.payload)
        let path = blobs.path(of: reference.sha256)
        #expect(ContentDigest.ofFile(atPath: path) == reference.sha256)
        #expect(FileStamp(path: path)?.size == reference.size)
        expectSame(try blobs.read(reference, as: DataPayload.self), Self.payload)
        #expect(blobs.problem(with: reference, as: DataPayload.self) == nil)
        // Equal values are one blob; nothing but blobs is left in the folder.
        #expect(try blobs.write(Self.payload) == reference)
        #expect(blobs.all().map(\.sha256) == [reference.sha256])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: blobs.directory) == [String(reference.sha256.prefix(2))]
        )
    }

    @Test func aMissingTruncatedDamagedOrForeignBlobIsNeverRead() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reference = try blobs.write(Self.payload)
        let path = blobs.path(of: reference.sha256)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))

        var flipped = [UInt8](original)
        flipped[flipped.count / 2] ^= 1
        try Data(flipped).write(to: URL(fileURLWithPath: path))
        #expect(blobs.problem(with: reference, as: DataPayload.self)?.contains("is damaged") == true)
        #expect(throws: BlobError.self) { try blobs.read(reference, as: DataPayload.self) }

        try original.prefix(original.count - 1).write(to: URL(fileURLWithPath: path))
        #expect(blobs.problem(with: reference, as: DataPayload.self)?.contains("bytes, not") == true)

        try FileManager.default.removeItem(atPath: path)
        #expect(blobs.problem(with: reference, as: DataPayload.self)?.contains("is missing") == true)

        try original.write(to: URL(fileURLWithPath: path))
        #expect(blobs.problem(with: reference, as: OtherValue.self) == "it holds 'data 1', not 'other 1'")
    }

    @Test func aBlobCheckedBeforeTheRunIsReadWithoutHashingAgainUnlessItChanged() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let good = try blobs.write(Self.payload)
        let gone = BlobReference(sha256: String(repeating: "0", count: 64), size: 3)
        let results = blobs.check([(good, DataPayload.self), (gone, DataPayload.self)])
        let stamp = try results[0].get()
        #expect(throws: BlobError.self) { try results[1].get() }
        expectSame(try blobs.read(good, as: DataPayload.self, verified: stamp), Self.payload)
        // Changed in place after the check (same size, a new modification time): hashed again, and refused.
        let path = blobs.path(of: good.sha256)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count - 1] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(FileStamp(path: path) != stamp)
        #expect(throws: BlobError.self) { try blobs.read(good, as: DataPayload.self, verified: stamp) }
    }

    @Test func anUnwritableFolderIsAnErrorAndLeavesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // As root, permissions do not stop a write: a regular file where the folder should be does.
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: blobs.directory))
        #expect(throws: BlobError.self) { try blobs.write(Self.payload) }
    }

    @Test func cleaningKeepsWhatAJournalPointsAtAndRemovesTheRest() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let kept = try blobs.write(Self.payload)
        let stray = try blobs.write(DataPayload(Data("stray".utf8), source: ""))
        // A temporary left by a killed writer (nobody holds its lock), and one a live writer holds (this test).
        let dead = blobs.directory + "/.flowrun-blob.Dead01"
        #expect(FileManager.default.createFile(atPath: dead, contents: Data()))
        let live = try WriteTemporaries.create(for: BlobStore.temporaryName, in: blobs.directory)
        defer { close(live.descriptor) }
        var record = JournalTests.record("a")
        record.blob = kept
        try Data(Journal.magic + (Journal.frame(record) ?? [])).write(
            to: URL(fileURLWithPath: folder + "/w.yaml.journal"))
        #expect(RunStore.removeUnreferencedBlobs(in: folder) == 1)
        #expect(blobs.all().map(\.sha256) == [kept.sha256])
        #expect(blobs.problem(with: stray, as: DataPayload.self)?.contains("missing") == true)
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live.path))
    }

    @Test func aRecordWithABlobReadsBackAsWritten() {
        var record = JournalTests.record("a")
        record.blob = BlobReference(sha256: "ab", size: 12, facts: "640x480", variant: "scale 1/2")
        var bare = JournalTests.record("b")
        bare.blob = BlobReference(sha256: "cd", size: 0)
        let bytes = [record, bare].reduce(Journal.magic) { $0 + (Journal.frame($1) ?? []) }
        #expect(Journal.parse(bytes).records == [record, bare])
    }

    // MARK: Decisions

    static let yaml = """
        version: 1
        tasks:
          a: { type: fetch, url: in.bin, cache: true }
          b: { type: command, argv: [cat], stdin: true, dependsOn: a }
        """

    @Test func aStoredOutputIsRestoredForAReaderThatRuns() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try TestWorkflow.plan(Self.yaml, registry: .builtIn)
        let settings = UpToDate.Settings(blobs: blobs)
        let cold = UpToDate(plan: plan, records: [:], settings: settings)
        #expect(cold.storesValue == [true, false])
        var record = JournalRecord(
            run: "r", node: "a", key: try #require(cold.keys[0]), inputs: try #require(cold.inputs[0]))
        // Without a blob, the reader's run needs the node to run.
        #expect(UpToDate(plan: plan, records: ["a": record], settings: settings).causes[0] == .neededBy(node: "b"))
        record.blob = try blobs.write(Self.payload)
        let warm = UpToDate(plan: plan, records: ["a": record], settings: settings)
        #expect(warm.causes[0] == nil)
        #expect(warm.restoredNodes == [0])
        #expect(warm.cachedNodes.isEmpty)
        #expect(warm.unusableBlobs.isEmpty)
        // Without a blob store (a dry run of --no-cache), nothing is restored.
        #expect(UpToDate(plan: plan, records: ["a": record], settings: .init()).restoredNodes.isEmpty)

        try FileManager.default.removeItem(atPath: blobs.path(of: try #require(record.blob).sha256))
        let damaged = UpToDate(plan: plan, records: ["a": record], settings: settings)
        #expect(damaged.restoredNodes.isEmpty)
        guard case .storedOutputUnusable(let problem)? = damaged.causes[0] else {
            Issue.record("a missing blob must make its node run: \(String(describing: damaged.causes[0]))")
            return
        }
        #expect(problem.contains("is missing"))
        #expect(damaged.unusableBlobs.count == 1)
    }

    @Test func aValueTheGatherReadsIsStoredEvenWithoutCacheTrueAndReadBackWhateverTheTaskSays() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              each: { type: command, forEach: [x, y], argv: [echo, "${item}"], cache: false }
              join: { type: command, gather: true, dependsOn: each, argv: [cat], stdin: true }
            """, registry: .builtIn)
        #expect(ShardPlan(plan: plan).valueNodes == [0, 1])
        let shard = UpToDate(plan: plan, records: [:], settings: .init(blobs: blobs, keepValues: [0, 1]))
        #expect(shard.storesValue == [true, true, false])
        var records = LatestRecords()
        for index in 0..<2 {
            var record = JournalRecord(
                run: "r", node: plan.nodes[index].id, key: try #require(shard.keys[index]),
                inputs: try #require(shard.inputs[index]))
            record.blob = try blobs.write(DataPayload(Data("\(index)".utf8), source: ""))
            records[record.node] = record
        }
        let gather = UpToDate(plan: plan, records: records, settings: .init(blobs: blobs, readValues: [0, 1]))
        #expect(gather.restoredNodes == [0, 1])
        #expect(gather.causes[2] != nil)
        let part = gather.restricted(to: [1, 2])
        #expect(part.restoredNodes == [0])
        #expect(part.keys == [gather.keys[1], gather.keys[2]])
    }

    @Test func aGatherReadsOnlyTheValuesOfItsInputTask() throws {
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              sum: { type: command, forEach: [x, y], argv: [echo, "${item}"] }
              other: { type: command, forEach: [x, y], argv: [echo, "${item}"] }
              wait: { type: sleep, duration: 1ms, forEach: [x, y] }
              join: { type: command, gather: true, dependsOn: [sum, other, wait], input: sum, argv: [cat], stdin: true }
            """, registry: .builtIn)
        let split = ShardPlan(plan: plan)
        #expect(split.valueNodes.map { plan.nodes[$0].id } == ["sum[x]", "sum[y]"])
        #expect(split.shard(of: 1, count: 2)?.index == 2)
        #expect(split.shard(of: plan.nodes.count - 1, count: 2) == nil)
    }

    // MARK: Runs

    @Test func aRestoredNodeEndsCachedAndItsReaderGetsTheValue() async throws {
        let plan = try TestWorkflow.plan(Self.yaml, registry: .builtIn)
        var options = RunOptions()
        options.restoredNodes = [0]
        options.restore = { _ in .success(DataPayload(Data("restored".utf8), source: "blob")) }
        let succeeded = LockedBox<[Int: String]>([:])
        options.nodeSucceeded = { index, operation, _ in
            let text = operation.output(as: DataPayload.self).map { String(decoding: $0.bytes, as: UTF8.self) }
            succeeded.withLock { $0[index] = text ?? "" }
        }
        // Awaited: the blocking `run()` would hold a thread of the cooperative pool while `b` runs its program.
        let report = await Runner(plan: plan, options: options).run()
        #expect(report.nodes.map(\.status) == [.cached, .succeeded])
        #expect(report.nodes[0].attempts == 1)
        // The store journals what ran, not what it gave back; `cat` read the restored bytes.
        #expect(succeeded.withLock { $0 } == [1: "restored"])
    }

    @Test func aRestoreThatFailsFailsTheNodeAndSkipsItsReaders() async throws {
        let plan = try TestWorkflow.plan(Self.yaml, registry: .builtIn)
        var options = RunOptions()
        options.restoredNodes = [0]
        options.restore = { _ in .failure(NodeFailure(.io, "its stored output changed during the run")) }
        // Awaited: the blocking `run()` would hold a thread of the cooperative pool while `b` runs its program.
        let report = await Runner(plan: plan, options: options).run()
        #expect(report.nodes.map(\.status) == [.failed, .skipped])
        #expect(report.nodes[0].cause == "its stored output changed during the run")
        #expect(report.exitCode == 1)
    }
}

/// A value type whose blobs a `data` blob must not be read as.
private struct OtherValue: StorableOutput {
    static var storageTag: String { "other 1" }
    func store(into blob: inout BlobWriter) throws(BlobError) {}
    init(restoring blob: inout BlobReader) throws(BlobError) {}
}
