import FlowKitTesting
import Foundation
import Testing

@testable import FlowKit

/// Each step of the up-to-date decisions on its own: the keys, the blob check, a node's policy and record check,
/// and a pass over the kept nodes.
@Suite struct UpToDateStepTests {
    static let chain = """
        version: 1
        tasks:
          a: { type: noop }
          b: { type: noop, dependsOn: a }
          s: { type: sleep, duration: 1ms, dependsOn: b }
          t: { type: noop, dependsOn: s }
        """

    func keys(_ plan: Plan, revalidated: [Int: SourceIdentity] = [:]) -> UpToDate.NodeKeys {
        let tasks = UpToDate.TaskFacts.of(plan, options: ["optimize=true"])
        return UpToDate.NodeKeys(
            plan: plan, tasks: tasks, keepsNothing: plan.nodes.map { tasks[$0.taskIndex].keepsNothing },
            revalidated: revalidated)
    }

    static let inputs = NodeKeyInputs(
        type: "sleep", implementation: "1", options: ["optimize=true"],
        parameters: [.init(name: "duration", value: "0.001")], upstream: [], source: nil)

    // MARK: Keys

    @Test func keysAreTheirInputsKeysAndOnlyKeptNodesAndWhatTheyNeedAreKeyed() throws {
        let plan = try TestWorkflow.plan(Self.chain, registry: .builtIn)
        let keys = keys(plan)
        #expect(keys.keys.map { $0 != nil } == [true, true, true, false])
        for index in plan.nodes.indices { #expect(keys.inputs[index]?.key == keys.keys[index]) }
        #expect(keys.inputs[2]?.upstream == [.init(node: "b", key: try #require(keys.keys[1]))])
        #expect(keys.unverifiableSources == [nil, nil, nil, nil])
        #expect(keys.outputPaths == [nil, nil, nil, nil])
        // The same plan keys the same way every time.
        #expect(self.keys(plan).keys == keys.keys)
    }

    @Test func aSourceThatChangesEveryRunGetsAKeyOfThisRunOnlyUnlessRevalidated() throws {
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              get: { type: fetch, url: "http://127.0.0.1:9/photo.jpg" }
              wait: { type: sleep, duration: 1ms, dependsOn: get }
            """, registry: .builtIn)
        let first = keys(plan)
        let second = keys(plan)
        #expect(first.unverifiableSources[0]?.contains("http://127.0.0.1:9/photo.jpg") == true)
        #expect(first.unverifiableSources[1] == nil)
        #expect(first.keys[0] != second.keys[0])
        #expect(first.keys[1] != second.keys[1], "downstream of a source of this run only")
        // An answer from the server replaces it: the same key each time, and nothing left unverifiable.
        let answer = SourceIdentity("url http://127.0.0.1:9/photo.jpg etag \"1\"")
        let revalidated = keys(plan, revalidated: [0: answer])
        #expect(revalidated.unverifiableSources == [nil, nil])
        #expect(revalidated.keys == keys(plan, revalidated: [0: answer]).keys)
        #expect(revalidated.inputs[0]?.source == answer.description)
    }

    // MARK: Blob check

    @Test func aBlobIsTakenAsIntactUntilCheckedThenCheckedOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blobcheck-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BlobStore(storeDirectory: folder.path)
        let good = try store.write(DataPayload(Data("kept".utf8), source: "in.bin"))
        let gone = BlobReference(sha256: String(repeating: "0", count: 64), size: 3)
        var check = UpToDate.BlobCheck(blobs: store)
        #expect(check.problem(with: good, as: DataPayload.self) == nil)
        #expect(check.problem(with: gone, as: DataPayload.self) == nil)
        #expect(check.verified.isEmpty)
        let checkedSome = check.checkPending()
        #expect(checkedSome)
        #expect(check.problem(with: good, as: DataPayload.self) == nil)
        #expect(check.problem(with: gone, as: DataPayload.self)?.contains("is missing") == true)
        #expect(Array(check.verified.keys) == [good.sha256])
        // Nothing new was asked about: the decisions stand.
        let checkedMore = check.checkPending()
        #expect(!checkedMore)
        #expect(check.checked.count == 2)
    }

    @Test func withoutABlobStoreNothingIsChecked() {
        var check = UpToDate.BlobCheck(blobs: nil)
        let reference = BlobReference(sha256: String(repeating: "1", count: 64), size: 1)
        #expect(check.problem(with: reference, as: DataPayload.self) == nil)
        let checkedAny = check.checkPending()
        #expect(!checkedAny)
        #expect(check.verified.isEmpty)
    }

    // MARK: A node's decision

    @Test(
        arguments: [
            (UpToDate.RunPolicy(), nil),
            (UpToDate.RunPolicy(force: true, rerunBy: "a", cache: .disabled), .forced),
            (UpToDate.RunPolicy(rerunBy: "a", unverifiableSource: "url x", cache: .disabled), .rerun(task: "a")),
            (UpToDate.RunPolicy(unverifiableSource: "url x", cache: .disabled), .unverifiableSource("url x")),
            (UpToDate.RunPolicy(cache: .disabled, cachedByDefault: false), .notCached("cache: false")),
            (
                UpToDate.RunPolicy(cachedByDefault: false),
                .notCached("never reused without `cache: true` (side effects)")
            ),
            (UpToDate.RunPolicy(cache: .enabled, cachedByDefault: false), nil),
            (UpToDate.RunPolicy(cache: .content), nil),
        ] as [(UpToDate.RunPolicy, RunCause?)])
    func thePolicyDecidesBeforeAnyRecordInItsOrder(policy: UpToDate.RunPolicy, cause: RunCause?) {
        #expect(policy.cause == cause)
    }

    @Test func aRecordServesWhileItsKeyIsTheSameAndNoRunningReaderNeedsTheNode() {
        let inputs = Self.inputs
        let record = JournalRecord(run: "r", node: "s", key: inputs.key, inputs: inputs)
        var check = UpToDate.RecordCheck(
            record: record, inputs: .decoded(inputs), key: inputs.key, outputPath: nil, isRead: false,
            runningReader: nil)
        #expect(check.cause == nil)
        check.record = nil
        #expect(check.cause == .noRecord)
        // Read by nodes that do not run: their keys guarantee its own, so its record is not needed.
        check.isRead = true
        #expect(check.cause == nil)
        check.runningReader = "t"
        #expect(check.cause == .noRecord)
        check.record = record
        #expect(check.cause == .neededBy(node: "t"))

        var changed = inputs
        changed.parameters = [.init(name: "duration", value: "0.002")]
        check = UpToDate.RecordCheck(
            record: record, inputs: .decoded(changed), key: changed.key, outputPath: nil, isRead: false,
            runningReader: nil)
        #expect(check.cause == .parameterChanged(name: "duration", from: "0.001", to: "0.002"))
    }

    @Test func aReadNodeThatWritesNoFileIsJudgedByItsReadersAndItsRecordDecidesOnceOneRuns() {
        let inputs = Self.inputs
        var changed = inputs
        changed.parameters = [.init(name: "duration", value: "0.002")]
        // A record of another key: while no reader runs, their keys guarantee this one's, and the record is not read.
        var check = UpToDate.RecordCheck(
            inputs: .decoded(changed), key: changed.key, outputPath: nil, isRead: true, runningReader: nil)
        #expect(check.isJudgedByReaders)
        #expect(check.cause == nil)
        // Once a reader runs, the record decides: what changed, or else that the reader needs it.
        check.runningReader = "t"
        check.record = JournalRecord(run: "r", node: "s", key: inputs.key, inputs: inputs)
        #expect(!check.isJudgedByReaders)
        #expect(check.cause == .parameterChanged(name: "duration", from: "0.001", to: "0.002"))
        check.inputs = nil
        check.key = inputs.key
        #expect(check.cause == .neededBy(node: "t"))
        // A node nothing reads, or one that writes a file, is judged by its record.
        check.runningReader = nil
        check.isRead = false
        #expect(!check.isJudgedByReaders)
        check.record = nil
        #expect(check.cause == .noRecord)
        check.isRead = true
        check.outputPath = "/nowhere/out.txt"
        #expect(!check.isJudgedByReaders)
        #expect(check.cause == .noRecord)
    }

    @Test func aWrittenFileServesWhileItIsWhatWasWritten() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recordcheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.jpg").path
        try Data("written".utf8).write(to: URL(fileURLWithPath: path))
        let output = OutputRecord(
            path: path, stamp: try #require(FileStamp(path: path)),
            sha256: try #require(ContentDigest.ofFile(atPath: path)))
        let inputs = Self.inputs
        let record = JournalRecord(run: "r", node: "save", key: inputs.key, inputs: inputs, output: output)
        let check = UpToDate.RecordCheck(
            record: record, inputs: .decoded(inputs), key: inputs.key, outputPath: path, isRead: true,
            runningReader: nil)
        #expect(check.cause == nil)
        // Rewritten with the same bytes: a new stamp, the same content.
        try Data("written".utf8).write(to: URL(fileURLWithPath: path))
        #expect(check.cause == nil)
        try Data("WRITTEN".utf8).write(to: URL(fileURLWithPath: path))
        #expect(check.cause == .outputChanged(path: path))
        try FileManager.default.removeItem(atPath: path)
        #expect(check.cause == .outputMissing(path: path))
    }

    // MARK: A pass over the kept nodes

    @Test func aPassRestoresWhatItTakesAsIntactAndTheNextPassRunsItWhenTheCheckFails() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keptpass-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              a: { type: fetch, url: in.bin, cache: true }
              b: { type: command, argv: [cat], stdin: true, dependsOn: a }
            """, registry: .builtIn)
        let blobStore = BlobStore(storeDirectory: folder.path)
        let settings = UpToDate.Settings(blobs: blobStore)
        let tasks = UpToDate.TaskFacts.of(plan, options: ["optimize=true"])
        let keys = keys(plan)
        var record = JournalRecord(
            run: "r", node: "a", key: try #require(keys.keys[0]), inputs: try #require(keys.inputs[0]))
        // A blob that is not there: the first pass cannot know it yet.
        record.blob = BlobReference(sha256: String(repeating: "2", count: 64), size: 4)
        var blobs = UpToDate.BlobCheck(blobs: blobStore)
        let first = UpToDate.KeptDecisions(
            plan: plan, tasks: tasks, keys: keys, records: .init(latest: ["a": record], nodes: plan.nodes),
            settings: settings, rerunBy: [],
            blobs: &blobs)
        #expect(first.causes == [nil, .notCached("never reused without `cache: true` (side effects)")])
        #expect(first.restored == [0])
        let firstPassAsked = blobs.checkPending()
        #expect(firstPassAsked)
        let second = UpToDate.KeptDecisions(
            plan: plan, tasks: tasks, keys: keys, records: .init(latest: ["a": record], nodes: plan.nodes),
            settings: settings, rerunBy: [],
            blobs: &blobs)
        #expect(second.restored.isEmpty)
        #expect(second.unusable.count == 1 && second.unusable[0].hasPrefix("a: "))
        guard case .storedOutputUnusable? = second.causes[0] else {
            Issue.record("a missing blob must make its node run: \(String(describing: second.causes[0]))")
            return
        }
        let secondPassAsked = blobs.checkPending()
        #expect(!secondPassAsked)
    }

    @Test func aRerunReachesEverythingDownstreamOfTheTaskNamed() throws {
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              a: { type: sleep, duration: 1ms }
              b: { type: sleep, duration: 1ms, forEach: [1, 2], dependsOn: a }
              c: { type: sleep, duration: 1ms, gather: true, dependsOn: b }
              d: { type: sleep, duration: 1ms }
            """, registry: .builtIn)
        let tasks = UpToDate.TaskFacts.of(plan, options: ["optimize=true"])
        #expect(UpToDate.KeptDecisions.rerunBy(plan, tasks: tasks, rerun: []).isEmpty)
        let rerun = UpToDate.KeptDecisions.rerunBy(plan, tasks: tasks, rerun: ["b"])
        let expected: [String: String?] = ["a": nil, "b[1]": "b", "b[2]": "b", "c": "b", "d": nil]
        #expect(Dictionary(uniqueKeysWithValues: zip(plan.nodes.map(\.id), rerun)) == expected)
    }
}
