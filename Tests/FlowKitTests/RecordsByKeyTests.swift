import Testing

@testable import FlowKit

/// Where the latest record of each key is (``RecordsByKey``): the table `RunStore.record(withKey:)` asks.
@Suite struct RecordsByKeyTests {
    /// 5,000 nodes over 1,500 keys, each recorded by three or four nodes: the latest record of each key is found,
    /// at the position a dictionary of every record's position finds; a key no record has is not found.
    @Test func theLatestRecordOfEachKeyIsFoundAndAKeyNoRecordHasIsNot() throws {
        var latest = LatestRecords()
        for node in 0..<5000 { latest["n\(node)"] = JournalTests.record("n\(node)", key: "k\(node % 1500)") }
        var expected: [NodeKey: Int] = [:]
        for position in latest.positions {
            if let key = latest.key(at: position) { expected[key] = position }
        }
        #expect(expected.count == 1500)
        let table = RecordsByKey(latest)
        for (key, position) in expected {
            #expect(table.position(of: key, in: latest) == position)
        }
        let seventh = try #require(table.position(of: JournalTests.key("k7"), in: latest))
        #expect(latest.record(at: seventh)?.node == "n4507", "the last of n7, n1507, n3007 and n4507")
        #expect(table.position(of: JournalTests.key("k1500"), in: latest) == nil)
    }

    @Test func aStoreWithoutRecordsFindsNone() {
        let latest = LatestRecords()
        #expect(RecordsByKey(latest).position(of: JournalTests.key("k"), in: latest) == nil)
    }
}
