import FlowBasics
import FlowKitTesting
import Foundation
import OrderedCollections
import Testing

@testable import FlowKit

/// Node keys, the journal's format and the up-to-date decisions, in-process.
@Suite struct NodeKeyTests {
    static let base = """
        version: 1
        params: { n: 2 }
        queues: { slow: { maxConcurrent: 1 } }
        tasks:
          a: { type: sleep, duration: 10ms }
          b: { type: sleep, duration: "${params.n}ms", dependsOn: a }
          c: { type: sleep, duration: 0ms, dependsOn: [a, b] }
        """

    func keys(_ yaml: String, optimize: Bool = true) throws -> [String: String] {
        let plan = try TestWorkflow.plan(yaml, registry: .builtIn)
        let decisions = UpToDate(plan: plan, records: [:], settings: .init(optimize: optimize))
        return Dictionary(uniqueKeysWithValues: zip(plan.nodes.map(\.id), decisions.keys.map { $0?.hex ?? "" }))
    }

    @Test func whatRunsANodeButNotWhatItProducesIsNotInItsKey() throws {
        let before = try keys(Self.base)
        let after = try keys(
            Self.base.replacingOccurrences(
                of: "b: { type: sleep, duration: \"${params.n}ms\", dependsOn: a }",
                with:
                    "b: { type: sleep, duration: \"${params.n}ms\", dependsOn: a, queue: slow, priority: high, retries: 3, timeout: 5s, continueOnError: true }"
            ))
        #expect(before == after)
    }

    @Test func aParameterChangeChangesTheKeyAndEveryKeyDownstream() throws {
        let before = try keys(Self.base)
        let after = try keys(Self.base.replacingOccurrences(of: "params: { n: 2 }", with: "params: { n: 3 }"))
        #expect(before["a"] == after["a"])
        #expect(before["b"] != after["b"])
        #expect(before["c"] != after["c"])
    }

    @Test func upstreamKeysInInputOrderAndRunOptionsAreInTheKey() throws {
        let gather = """
            version: 1
            tasks:
              a: { type: sleep, forEach: [1, 2], duration: "${item}ms" }
              c: { type: command, argv: ["true"], cache: true, gather: true, dependsOn: a }
            """
        let before = try keys(gather)
        let swapped = try keys(gather.replacingOccurrences(of: "[1, 2]", with: "[2, 1]"))
        // Nodes are named by their item: `a[1]` is the same node, with the same key, wherever its item stands.
        #expect(before["a[1]"] == swapped["a[1]"] && before["a[2]"] == swapped["a[2]"])
        #expect(before["c"] != swapped["c"])
        let literal = try keys(Self.base, optimize: false)
        let optimized = try keys(Self.base)
        #expect(Set(optimized.keys).allSatisfy { optimized[$0] != literal[$0] })
    }

    @Test func keysKeepTheBytesOfEarlierJournals() throws {
        // SHA-256 of the fields' encoding in one piece, computed apart from flowrun: hashing a task's shared
        // fields once and each node's own after them must give the very same keys, or every journal misses.
        let inputs = NodeKeyInputs(
            type: "sleep", implementation: "1", options: ["optimize=true"],
            parameters: [.init(name: "duration", value: "0")],
            upstream: [.init(node: "t0", key: try #require(NodeKey(hex: String(repeating: "ab", count: 32))))],
            source: nil)
        #expect(inputs.key.hex == "b8783fa7d082664508d16a99e737186f74fe22dfb6b8ad573c06400a61e3b635")
        let sourced = NodeKeyInputs(
            type: "fetch", implementation: "3", options: [], parameters: [], upstream: [], source: "file /x")
        #expect(sourced.key.hex == "68249169c8edc76ebd2247308399b331b61fb352d182c89d1b711e25836c3be1")
        // The decisions key nodes the same way as their inputs say.
        let plan = try TestWorkflow.plan(Self.base, registry: .builtIn)
        let decisions = UpToDate(plan: plan, records: [:], settings: .init())
        for index in plan.nodes.indices { #expect(decisions.inputs[index]?.key == decisions.keys[index]) }
    }

    @Test func tasksGivenTheSameParametersShareNothingThatDiffers() throws {
        // Resolved once for tasks of a type given the same values, but not across what else decides the
        // resolution: a `cache: content` source is identified by its content, the other by its stamp.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("photo".utf8).write(to: directory.appendingPathComponent("in.bin"))
        let yaml = """
            version: 1
            tasks:
              a: { type: fetch, url: in.bin }
              b: { type: fetch, url: in.bin, cache: content }
              c: { type: fetch, url: in.bin }
              d: { type: sleep, duration: 1s }
              e: { type: sleep, duration: 1000ms }
              f: { type: sleep, duration: 2s }
            """
        let plan = try TestWorkflow.plan(
            yaml, registry: .builtIn, path: directory.appendingPathComponent("flow.yaml").path)
        let decisions = UpToDate(plan: plan, records: [:], settings: .init())
        let inputs = Dictionary(
            uniqueKeysWithValues: zip(plan.nodes.map(\.id), plan.nodes.indices.map { decisions.inputs[$0] }))
        #expect(inputs["a"]??.source == inputs["c"]??.source)
        #expect(inputs["a"]??.source != inputs["b"]??.source)
        #expect(inputs["b"]??.source?.contains("sha256") == true, "\(String(describing: inputs["b"]??.source))")
        #expect(inputs["d"]??.parameters == inputs["e"]??.parameters)
        #expect(inputs["d"]??.parameters != inputs["f"]??.parameters)
        let keys = Dictionary(uniqueKeysWithValues: zip(plan.nodes.map(\.id), decisions.keys))
        #expect(keys["a"] == keys["c"])
        #expect(keys["a"] != keys["b"])
        #expect(keys["d"] == keys["e"])
        #expect(keys["d"] != keys["f"])
    }

    @Test func canonicalValuesDoNotDependOnSpelling() {
        #expect(NodeKeyInputs.canonical(.int(1), as: .number) == NodeKeyInputs.canonical(.double(1.0), as: .number))
        #expect(NodeKeyInputs.canonical(.double(0.8)) == "0.8")
        #expect(NodeKeyInputs.canonical(.string("a\"b\n")) == "\"a\\\"b\\n\"")
        #expect(
            NodeKeyInputs.canonical(.map(["b": .int(1), "a": .int(2)]))
                == NodeKeyInputs.canonical(.map(["a": .int(2), "b": .int(1)])))
        #expect(NodeKeyInputs.canonical(.string("1")) != NodeKeyInputs.canonical(.int(1)))
    }
}

@Suite struct JournalTests {
    /// A key made from a label: the SHA-256 of its text.
    static func key(_ label: String) -> NodeKey {
        // 64 hex digits by construction.
        NodeKey(hex: ContentDigest.of(Array(label.utf8)))!
    }

    static func record(_ node: String, key: String = "k", output: OutputRecord? = nil) -> JournalRecord {
        JournalRecord(
            run: "2026-11-23T20:00:00Z", node: node, key: Self.key(key),
            inputs: NodeKeyInputs(
                type: "sepia", implementation: "1", options: ["optimize=true"],
                parameters: [.init(name: "intensity", value: "0.8")],
                upstream: [.init(node: "decode[\(node.count)]", key: Self.key("up"))], source: nil),
            output: output)
    }

    static let records = [
        record("a"),
        record(
            "bb",
            output: OutputRecord(path: "/o/x.jpg", stamp: FileStamp(size: 12, modified: -3, inode: 9), sha256: "ab")),
        record("ccc", key: "z"),
    ]

    static var bytes: [UInt8] { records.reduce(Journal.magic) { $0 + (Journal.frame($1) ?? []) } }

    @Test func theRecordChecksumIsCRC32C() {
        // The standard check value of CRC-32C (Castagnoli).
        #expect(CRC32C.checksum(Array("123456789".utf8)[...]) == 0xE306_9283)
    }

    @Test func theInstructionAndTheTablesAgree() {
        // Every length around the 8-byte steps, from every alignment: the two must give one value, since a
        // journal written on one machine is read on another.
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32C.tableChecksum($0) } == 0xE306_9283)
        for start in 0..<8 {
            for end in start...start + 40 {
                let slice = bytes[start..<end]
                let byTables = slice.withUnsafeBytes { CRC32C.tableChecksum($0) }
                #expect(CRC32C.checksum(slice) == byTables, "bytes \(start)..<\(end)")
            }
        }
        #expect(CRC32C.checksum(bytes[...]) == bytes.withUnsafeBytes { CRC32C.tableChecksum($0) })
    }

    @Test func recordsReadBackAsWritten() {
        let contents = Journal.parse(Self.bytes)
        #expect(contents.records == Self.records)
        #expect(contents.damage == nil)
        #expect(contents.intactLength == Self.bytes.count)
    }

    /// A write cut at any byte (kill -9, a full disk) loses at most the record it was writing, with a warning.
    @Test func aJournalCutAtAnyByteKeepsTheWholeRecordsBeforeTheCut() {
        let bytes = Self.bytes
        var boundaries = [Journal.magic.count]
        for record in Self.records {
            boundaries.append(boundaries[boundaries.count - 1] + (Journal.frame(record)?.count ?? 0))
        }
        for cut in 0..<bytes.count {
            let contents = Journal.parse(Array(bytes.prefix(cut)))
            let whole = boundaries.filter { $0 <= cut }.count - 1
            #expect(contents.records == Array(Self.records.prefix(max(whole, 0))), "cut at \(cut)")
            let atBoundary = cut == 0 || boundaries.contains(cut)
            #expect((contents.damage == nil) == atBoundary, "cut at \(cut)")
            #expect(contents.intactLength <= cut)
        }
    }

    /// Any one flipped byte after the magic is caught by a checksum, or ends the reading; never a changed record.
    @Test func aFlippedByteIsNeverTrusted() {
        let bytes = Self.bytes
        for position in Journal.magic.count..<bytes.count {
            var damaged = bytes
            damaged[position] ^= 0x40
            let contents = Journal.parse(damaged)
            #expect(contents.damage != nil, "flip at \(position)")
            #expect(Self.records.starts(with: contents.records), "flip at \(position)")
        }
    }

    @Test func aForeignFileIsReadAsEmptyWithAWarning() {
        let contents = Journal.parse(Array("version: 1\ntasks: {}\n".utf8))
        #expect(contents.records.isEmpty)
        #expect(contents.intactLength == 0)
        #expect(contents.damage?.contains("not one this flowrun writes") == true)
    }

    /// The journal's file, as a run reads it: in chunks, each record keeping where its inputs are.
    static func read(_ bytes: [UInt8]) throws -> Journal.Contents {
        let path = NSTemporaryDirectory() + "journal-\(UUID().uuidString)"
        defer { unlink(path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return Journal.read(atPath: path)
    }

    @Test func aJournalFileReadsBackAsWrittenItsInputsOnlyWhenAsked() throws {
        let contents = try Self.read(Self.bytes)
        #expect(contents.damage == nil)
        #expect(contents.intactLength == Self.bytes.count)
        // Compared field by field, inputs included: each is read from the file when asked, after it was removed.
        #expect(contents.records == Self.records)
        for record in contents.records {
            guard case .inJournal = record.recordedInputs else {
                Issue.record("\(record.node): inputs decoded at reading")
                continue
            }
        }
        // Framed again (compaction) from where they are, byte for byte.
        #expect(contents.records.reduce(Journal.magic) { $0 + (Journal.frame($1) ?? []) } == Self.bytes)
    }

    @Test func aJournalFileCutAtAnyByteKeepsTheWholeRecordsBeforeTheCut() throws {
        let bytes = Self.bytes
        var boundaries = [Journal.magic.count]
        for record in Self.records {
            boundaries.append(boundaries[boundaries.count - 1] + (Journal.frame(record)?.count ?? 0))
        }
        for cut in 0..<bytes.count {
            let contents = try Self.read(Array(bytes.prefix(cut)))
            let whole = boundaries.filter { $0 <= cut }.count - 1
            #expect(contents.records == Array(Self.records.prefix(max(whole, 0))), "cut at \(cut)")
            #expect((contents.damage == nil) == (cut == 0 || boundaries.contains(cut)), "cut at \(cut)")
            #expect(
                contents.intactLength == (cut == 0 ? 0 : boundaries.filter { $0 <= cut }.max() ?? 0), "cut at \(cut)")
        }
    }

    /// Records larger than the chunks the file is read in, and records across their edges, read whole.
    @Test func recordsLargerThanAChunkAndAcrossChunksReadWhole() throws {
        let large = String(repeating: "x", count: ChunkReader.chunkBytes * 2 + 17)
        var records: [JournalRecord] = []
        for index in 0..<6 {
            var record = Self.record("n\(index)", key: "k\(index)")
            if var inputs = record.inputs, index % 2 == 1 {
                inputs.parameters = [.init(name: "text", value: large)]
                record = JournalRecord(run: record.run, node: record.node, key: record.key, inputs: inputs)
            }
            records.append(record)
        }
        let contents = try Self.read(records.reduce(Journal.magic) { $0 + (Journal.frame($1) ?? []) })
        #expect(contents.damage == nil)
        #expect(contents.records == records)
    }
}

@Suite struct UpToDateTests {
    static let yaml = """
        version: 1
        tasks:
          a: { type: noop }
          b: { type: noop, dependsOn: a }
          c: { type: command, argv: [echo, hi], dependsOn: b }
          d: { type: noop, dependsOn: c }
        """

    /// The records a successful run of `plan` leaves.
    func records(of plan: Plan, _ decisions: UpToDate) -> LatestRecords {
        var records = LatestRecords()
        for (index, node) in plan.nodes.enumerated() {
            // As a run journals: nothing of a noop.
            guard let key = decisions.keys[index], let inputs = decisions.inputs[index], !decisions.keepsNothing[index]
            else { continue }
            records[node.id] = JournalRecord(run: "r", node: node.id, key: key, inputs: inputs)
        }
        return records
    }

    @Test func decisionsFollowTheStoreAndTheSettings() throws {
        let plan = try TestWorkflow.plan(Self.yaml, registry: .builtIn)
        let cold = UpToDate(plan: plan, records: [:], settings: .init())
        #expect(cold.causes.allSatisfy { $0 != nil })
        let records = records(of: plan, cold)
        let warm = UpToDate(plan: plan, records: records, settings: .init())
        // The command always runs; without `stdin` it reads nothing of what it depends on, which needs only to
        // have finished; the noop after it is decided when its turn comes, by the digest of what the command
        // printed (early cutoff), so it is not among the nodes cached before the run.
        #expect(warm.causes[0] == nil)
        #expect(warm.causes[1] == nil)
        #expect(warm.causes[2] == .notCached("never reused without `cache: true` (side effects)"))
        #expect(warm.causes[3] == nil)
        #expect(warm.awaitingOutput == [3: 2])
        #expect(warm.cachedNodes == [0, 1])
        let rerun = UpToDate(plan: plan, records: records, settings: .init(rerun: ["b"]))
        #expect(rerun.causes[0] == nil)
        #expect(rerun.causes[1] == .rerun(task: "b"))
        #expect(rerun.causes[3] == .rerun(task: "b"))
        let forced = UpToDate(plan: plan, records: records, settings: .init(force: true))
        #expect(forced.causes.allSatisfy { $0 == .forced })
    }

    @Test func cachedNodesEndCachedAndTheirDependentsRun() async throws {
        let plan = try TestWorkflow.plan(Self.yaml, registry: .builtIn)
        var options = RunOptions()
        options.cachedNodes = [0, 1]
        let recorded = LockedBox<[Int]>([])
        options.nodeSucceeded = { index, _, _ in recorded.withLock { $0.append(index) } }
        // Awaited: the blocking `run()` would hold a thread of the cooperative pool while `c` runs its program.
        let report = await Runner(plan: plan, options: options).run()
        #expect(report.nodes.map(\.status) == [.cached, .cached, .succeeded, .succeeded])
        #expect(report.exitCode == 0)
        #expect(recorded.withLock { $0.sorted() } == [2, 3])
        #expect(report.nodes[0].attempts == 0 && report.nodes[0].spans.isEmpty)
    }
}
