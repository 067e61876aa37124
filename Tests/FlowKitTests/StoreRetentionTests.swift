import Foundation
import Testing

@testable import FlowKit

/// Which results `flowrun cache clean` keeps (``StoreRetention``): each node's latest, those within an age, those
/// whose stored objects fit in a size.
struct StoreRetentionTests {
    /// A record of `node` made by the run that started `hoursAgo` hours before ``now``.
    static func record(_ node: String, hoursAgo: Int, key: String = "k") -> JournalRecord {
        var record = JournalTests.record(node, key: key)
        record.run = Self.now.addingTimeInterval(Double(-hoursAgo * 3600)).formatted(.iso8601)
        return record
    }

    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    /// Five records: `a` twice (the first superseded), `b`, `c`, `d`, from 50 hours ago to one.
    static let records = [
        record("a", hoursAgo: 50, key: "a1"), record("b", hoursAgo: 40), record("a", hoursAgo: 30, key: "a2"),
        record("c", hoursAgo: 20), record("d", hoursAgo: 1),
    ]

    /// Each record's objects: `a`'s two results share the blob `x`; `d` stores nothing.
    static func objects(_ record: JournalRecord) -> [StoreRetention.StoredObject] {
        switch (record.node, record.key == JournalTests.key("a1")) {
        case ("a", true): [("blobs/x", 100), ("files/a1", 10)]
        case ("a", false): [("blobs/x", 100), ("files/a2", 20)]
        case ("b", _): [("files/b", 40)]
        case ("c", _): [("files/c", 80)]
        default: []
        }
    }

    func kept(_ retention: StoreRetention) -> [String] {
        retention.kept(Self.records, now: Self.now, objects: Self.objects).map { "\($0.node)-\(Self.hours($0))h" }
    }

    static func hours(_ record: JournalRecord) -> Int {
        Int((now.timeIntervalSince(StoreRetention.start(of: record) ?? now) / 3600).rounded())
    }

    @Test func noLimitKeepsNothing() {
        #expect(StoreRetention().keepsNothing)
        #expect(kept(StoreRetention()).isEmpty)
    }

    @Test func keepLastKeepsEachNodesLatestInOrder() {
        #expect(kept(StoreRetention(keepLast: true)) == ["b-40h", "a-30h", "c-20h", "d-1h"])
    }

    @Test func maxAgeDropsWhatOlderRunsMade() {
        #expect(kept(StoreRetention(maxAge: .seconds(35 * 3600))) == ["a-30h", "c-20h", "d-1h"])
        #expect(kept(StoreRetention(maxAge: .seconds(0))).isEmpty)
        #expect(kept(StoreRetention(keepLast: true, maxAge: .seconds(45 * 3600))).count == 4)
        // A run time that does not read as one is kept.
        var odd = Self.record("z", hoursAgo: 0)
        odd.run = "yesterday"
        #expect(StoreRetention(maxAge: .seconds(1)).kept([odd], now: Self.now).count == 1)
    }

    /// 250 bytes in all (the shared blob counted once): the superseded `a` goes first (10 bytes, the blob stays
    /// for the later `a`), then the oldest latest results; `d`, which stores nothing, is never dropped for size.
    @Test func maxSizeDropsSupersededThenOldestUntilTheRestFits() {
        #expect(kept(StoreRetention(maxSize: 250)).count == 5)
        #expect(kept(StoreRetention(maxSize: 240)) == ["b-40h", "a-30h", "c-20h", "d-1h"])
        #expect(kept(StoreRetention(maxSize: 200)) == ["a-30h", "c-20h", "d-1h"])
        #expect(kept(StoreRetention(maxSize: 80)) == ["c-20h", "d-1h"])
        #expect(kept(StoreRetention(maxSize: 0)) == ["d-1h"])
    }

    @Test(arguments: [
        ("45s", 45), ("90m", 5400), ("12h", 43_200), ("30d", 2_592_000), ("2w", 1_209_600), ("0s", 0),
    ])
    func anAgeReads(_ text: String, seconds: Int64) {
        #expect(StoreRetention.age(text) == .seconds(seconds))
    }

    @Test(arguments: ["", "30", "d", "-1d", "1.5d", "30 d", "30D", "3y", "99999999999999999w"])
    func notAnAge(_ text: String) {
        #expect(StoreRetention.age(text) == nil)
    }

    @Test(arguments: [
        ("10GB", 10_000_000_000), ("500MB", 500_000_000), ("1.5TB", 1_500_000_000_000), ("2GiB", 2_147_483_648),
        ("512kib", 524_288), ("16B", 16), ("300", 300), ("4G", 4_000_000_000), ("1k", 1000),
    ])
    func aSizeReads(_ text: String, bytes: Int64) {
        #expect(StoreRetention.size(text) == bytes)
    }

    @Test(arguments: ["", "GB", "-1GB", "ten GB", "1e3MB", "10 GB", "1PB", "99999999999TB"])
    func notASize(_ text: String) {
        #expect(StoreRetention.size(text) == nil)
    }
}
