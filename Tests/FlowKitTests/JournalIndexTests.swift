import Foundation
import TestSupport
import Testing

@testable import FlowKit

/// The journal's index: a store opens from it with the very records its journal holds, and an index that is
/// damaged, cut short or of another journal is ignored (the journal is read instead), never trusted.
@Suite struct JournalIndexTests {
    /// Holds the store; removed with the suite's value.
    let folder: TemporaryFolder
    var directory: String { folder.path }
    let name = "wf.yaml"

    init() throws {
        folder = try TemporaryFolder()
    }

    var journal: String { RunStore.journalPath(in: directory, name: name) }
    var index: String { JournalIndex.path(ofJournal: journal) }

    /// Records of every shape: superseded ones, a written file, a file in a bucket (an `ETag` digest), a blob, a
    /// node that skipped itself.
    static let records: [JournalRecord] = {
        var records = (0..<40).map { JournalTests.record("n\($0)", key: "k\($0)") }
        records.append(JournalTests.record("n3", key: "k3, later"))
        records.append(
            JournalTests.record(
                "save[in/a b.txt]",
                output: OutputRecord(
                    path: "/o/a b.txt", stamp: FileStamp(size: 12, modified: -3, inode: .max),
                    sha256: ContentDigest.of(Array("a".utf8)))))
        records.append(
            JournalTests.record(
                "upload",
                output: OutputRecord(
                    path: "s3://bucket/x", stamp: FileStamp(size: 1, modified: 2, inode: 3), sha256: "\"etag-1\"")))
        var kept = JournalTests.record("kept", key: "v")
        kept.blob = BlobReference(sha256: ContentDigest.of([1]), size: 1, facts: "text", variant: "small")
        records.append(kept)
        var plain = JournalTests.record("plain", key: "w")
        plain.blob = BlobReference(sha256: ContentDigest.of([2]), size: 1)
        records.append(plain)
        var skipped = JournalTests.record("w900[in/small.jpg]", key: "s")
        skipped.skipped = "source is 682 px wide, under 900"
        records.append(skipped)
        var skippedKept = JournalTests.record("odd", key: "t")
        skippedKept.skipped = "nothing to do"
        skippedKept.blob = BlobReference(sha256: ContentDigest.of([3]), size: 1)
        records.append(skippedKept)
        records.append(JournalTests.record("n7", key: "k7, later"))
        return records
    }()

    /// A run that records `records` and ends, leaving the journal and, as it decides, the index.
    func record(_ records: some Sequence<JournalRecord>) throws {
        let store = try RunStore.open(directory: directory, name: name, warn: { Issue.record("\($0)") })
        for record in records { store.append(record) }
        store.close()
    }

    /// Each node's latest record, as the whole journal says, by node.
    func replayed() -> [String: JournalRecord] {
        var latest: [String: JournalRecord] = [:]
        for record in Journal.read(atPath: journal).records { latest[record.node] = record }
        return latest
    }

    /// What a store read now holds, by node, and checks every node's key is read in place as decoded.
    func read() -> (records: [String: JournalRecord], store: RunStore) {
        let store = RunStore.read(directory: directory, name: name)
        #expect(store.damage == nil)
        return (records(of: store), store)
    }

    /// What a store holds, by node, and checks every node's key is read in place as decoded.
    func records(of store: RunStore) -> [String: JournalRecord] {
        var records: [String: JournalRecord] = [:]
        for position in store.latest.positions {
            guard let record = store.latest.record(at: position) else {
                Issue.record("position \(position) does not decode")
                continue
            }
            #expect(store.latest.key(at: position) == record.key)
            #expect(store.latest.position(of: record.node) == position)
            records[record.node] = record
        }
        return records
    }

    @Test func aStoreOpensFromItsIndexWithTheRecordsOfItsJournal() throws {
        try record(Self.records)
        #expect(FileManager.default.fileExists(atPath: index), "the first run that records writes the index")
        let (records, store) = read()
        #expect(store.latest.index?.coveredLength == Int(FileStamp(path: journal)?.size ?? 0))
        // Compared field by field, inputs included (read from the journal where the index says they are).
        #expect(records == replayed())
        #expect(records.count == Self.records.count - 2)
        #expect(store.recordCount == Self.records.count)
        #expect(store.latest["n3"]?.key == JournalTests.key("k3, later"))
        #expect(store.latest["absent"] == nil && store.latest.position(of: "n") == nil)
        #expect(store.record(withKey: JournalTests.key("k12"))?.node == "n12")
        // Looked up one after another, in the index's order, in reverse, or skipping some, each node is found
        // where it is, and an absent node after any.
        let nodes = records.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        for order in [nodes, nodes.reversed(), nodes.enumerated().filter { $0.offset % 3 != 1 }.map(\.element)] {
            var previous: Int?
            for node in order + ["absent"] {
                let position = store.latest.position(of: node, after: previous)
                #expect(position == store.latest.position(of: node), "\(node)")
                previous = position ?? previous
            }
        }
        #expect(store.latest.positions == Array(0..<records.count), "the index's entries by node id")
        #expect(store.latest.positions.map { store.latest.record(at: $0)?.node } == nodes)
    }

    /// An index of more than one checksum piece (a megabyte) reads as its journal does, and again after the run
    /// gives back its pages (``RunStore/releaseIndexPages()``): they are read anew from the file.
    @Test func aLargeIndexReadsAsItsJournalBeforeAndAfterItsPagesAreGivenBack() throws {
        let padding = String(repeating: "p", count: 200)
        try record((0..<6000).map { JournalTests.record("\(padding)\($0)", key: "k\($0)") })
        let size = try FileManager.default.attributesOfItem(atPath: index)[.size] as? Int
        #expect((size ?? 0) > 1 << 20)
        let (records, store) = read()
        #expect(store.latest.index?.count == 6000)
        let journalRecords = replayed()
        #expect(records == journalRecords)
        store.releaseIndexPages()
        #expect(self.records(of: store) == journalRecords)
        #expect(store.latest["\(padding)5999"]?.key == JournalTests.key("k5999"))
    }

    /// A run killed after its records reached the journal and before the index was written, or one that
    /// recorded too little to rewrite it: the records past the index are read from the journal.
    @Test func recordsPastTheIndexAreReadFromTheJournal() throws {
        try record(Self.records)
        let indexed = try Data(contentsOf: URL(fileURLWithPath: index))
        let later = [JournalTests.record("n5", key: "k5, again"), JournalTests.record("new", key: "new")]
        try record(later)
        #expect(try Data(contentsOf: URL(fileURLWithPath: index)) == indexed, "a few records leave the index")
        let (records, store) = read()
        #expect(store.latest.index != nil)
        #expect(records == replayed())
        #expect(records["n5"]?.key == JournalTests.key("k5, again") && records["new"] != nil)
        #expect(store.latest.count == records.count && store.recordCount == Self.records.count + 2)
    }

    /// A run that records enough to rewrite the index makes it from what it appended and, where it recorded no
    /// node anew, from what the store opened with (its index and the records past it): the index reads as the
    /// whole journal does, a record found by key and journaled under another node's id included.
    @Test func aRunIndexesItsRecordsOverThoseTheStoreOpenedWith() throws {
        try record(Self.records)
        try record([JournalTests.record("n5", key: "k5, again"), JournalTests.record("past", key: "past")])
        let store = try RunStore.open(directory: directory, name: name, warn: { Issue.record("\($0)") })
        #expect(store.latest.index != nil && store.latest["past"] != nil)
        var adopted = try #require(store.record(withKey: JournalTests.key("k12")))
        adopted.node = "adopted"
        store.append(adopted)
        store.append(JournalTests.record("n3", key: "k3, last"))
        let padding = String(repeating: "p", count: 200)
        for number in 0..<6000 { store.append(JournalTests.record("\(padding)\(number)", key: "k\(number)")) }
        store.append(JournalTests.record("past", key: "past, again"))
        store.close()

        let (records, reopened) = read()
        #expect(reopened.latest.index?.coveredLength == Int(try #require(FileStamp(path: journal)).size))
        #expect(reopened.latest.index?.count == records.count, "every node's record is in the index")
        #expect(records == replayed())
        #expect(records.count == Self.records.count - 2 + 2 + 6000)
        #expect(reopened.recordCount == Self.records.count + 2 + 6003)
        #expect(records["n3"]?.key == JournalTests.key("k3, last"))
        #expect(records["n5"]?.key == JournalTests.key("k5, again"))
        #expect(records["past"]?.key == JournalTests.key("past, again"))
        #expect(records["n7"]?.key == JournalTests.key("k7, later"))
        #expect(records["adopted"]?.key == JournalTests.key("k12"))
        #expect(records["adopted"]?.inputs == records["n12"]?.inputs && records["adopted"]?.inputs != nil)
    }

    /// The index is made from what the run appended, not from the journal read back: a journal that is not what
    /// the run wrote when it ends (cut short behind its back) gets no index, and reads as what it holds.
    @Test func aJournalCutDuringTheRunGetsNoIndex() throws {
        let store = try RunStore.open(directory: directory, name: name, warn: { Issue.record("\($0)") })
        let written = OutputRecord(
            path: "/o/a.txt", stamp: FileStamp(size: 1, modified: 2, inode: 3), sha256: ContentDigest.of([1]))
        // Each record with a file goes to the journal at once.
        for number in 0..<20 { store.append(JournalTests.record("w\(number)", key: "k\(number)", output: written)) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal))
        try handle.truncate(atOffset: try handle.seekToEnd() - 10)
        try handle.close()
        store.close()
        #expect(!FileManager.default.fileExists(atPath: index))
        let reopened = RunStore.read(directory: directory, name: name)
        #expect(reopened.damage != nil, "the record cut short is reported")
        #expect(records(of: reopened) == replayed())
        #expect(records(of: reopened).count == 19)
    }

    @Test func aDamagedOrCutIndexIsIgnored() throws {
        try record(Self.records)
        let intact = try Data(contentsOf: URL(fileURLWithPath: index))
        let expected = replayed()
        var damaged: [Data] = [Data(), intact.prefix(JournalIndex.headerLength), intact.dropLast()]
        for position in stride(from: 0, to: intact.count, by: max(1, intact.count / 97)) {
            var flipped = intact
            flipped[position] ^= 0x10
            damaged.append(flipped)
        }
        for (number, bytes) in damaged.enumerated() {
            try bytes.write(to: URL(fileURLWithPath: index))
            let (records, store) = read()
            #expect(store.latest.index == nil, "damage \(number)")
            #expect(records == expected, "damage \(number)")
        }
    }

    /// An index whose journal was rewritten (a compaction renames a new file into place), cut back (a damaged
    /// tail), or changed in place is of another journal: ignored.
    @Test func anIndexOfAnotherJournalIsIgnored() throws {
        try record(Self.records)
        let stale = try Data(contentsOf: URL(fileURLWithPath: index))

        try RunStore.clean(directory: directory, name: name, keeping: StoreRetention(keepLast: true))
        #expect(!FileManager.default.fileExists(atPath: index), "compaction removes the index of the old journal")
        try stale.write(to: URL(fileURLWithPath: index))
        #expect(read().store.latest.index == nil)
        #expect(read().records == replayed())

        // The same file, cut back to a record's end: the index covers bytes it no longer has.
        let before = try #require(FileStamp(path: journal)).size
        try record([JournalTests.record("n1", key: "k1, again")])
        #expect(read().store.latest.index?.coveredLength == Int(try #require(FileStamp(path: journal)).size))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal))
        try handle.truncate(atOffset: UInt64(before))
        try handle.close()
        #expect(read().store.latest.index == nil)
        #expect(read().records["n1"]?.key == JournalTests.key("k1"))

        // The same file and length, other bytes: the window it checks differs.
        try record(Self.records)
        let current = try Data(contentsOf: URL(fileURLWithPath: index))
        var changed = try Data(contentsOf: URL(fileURLWithPath: journal))
        let last = try #require(Journal.frame(Self.records[Self.records.count - 1]))
        changed.replaceSubrange(
            (changed.count - last.count)...,
            with: try #require(Journal.frame(JournalTests.record("n7", key: "k7, other"))))
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: journal))
        try file.write(contentsOf: changed)
        try file.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: index)) == current)
        let (records, store) = read()
        #expect(store.latest.index == nil)
        #expect(records["n7"]?.key == JournalTests.key("k7, other"))
    }

    /// A run killed while it wrote the index (or compacted the journal) leaves a temporary; the next run to open
    /// the store removes it, and the index it had is still used.
    @Test func theTemporaryOfAKilledIndexWriteIsRemoved() throws {
        try record(Self.records)
        var left: [String] = []
        for name in [FilePaths.name(of: index), FilePaths.name(of: journal)] {
            let temporary = try WriteTemporaries.create(for: name, in: directory)
            close(temporary.descriptor)
            left.append(temporary.path)
        }
        let store = try RunStore.open(directory: directory, name: name, warn: { Issue.record("\($0)") })
        #expect(store.latest.index != nil)
        store.close()
        for path in left { #expect(!FileManager.default.fileExists(atPath: path), "\(path)") }
    }

    @Test func anEmptiedStoreLosesItsIndex() throws {
        try record(Self.records)
        try RunStore.clean(directory: directory, name: name)
        #expect(!FileManager.default.fileExists(atPath: index))
        #expect(read().records.isEmpty)
    }
}
