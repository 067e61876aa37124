/// The store's latest record of each node, by node id: what a run decides with.
///
/// Records are kept in one array in the order their nodes were first recorded, and found through a table of
/// node id → position: a hash table of full records would hold twice their size in empty buckets, and the
/// journal of a 100,000-item workflow has 200,000 of them.
package struct LatestRecords: Sendable, ExpressibleByDictionaryLiteral {
    private var positions: [String: Int] = [:]
    /// The records, one per node.
    package private(set) var values: [JournalRecord] = []

    /// No records.
    package init() {}

    package init(dictionaryLiteral elements: (String, JournalRecord)...) {
        for (node, record) in elements { self[node] = record }
    }

    /// How many nodes have a record.
    package var count: Int { values.count }

    /// Whether no node has a record.
    package var isEmpty: Bool { values.isEmpty }

    /// Where the latest record of a node is in ``values``.
    package func position(of node: String) -> Int? { positions[node] }

    /// The latest record of a node; setting one replaces the node's earlier record.
    package subscript(node: String) -> JournalRecord? {
        get { positions[node].map { values[$0] } }
        set {
            guard let newValue else {
                if let position = positions.removeValue(forKey: node) {
                    values.remove(at: position)
                    for (other, later) in positions where later > position { positions[other] = later - 1 }
                }
                return
            }
            // One hash for a node not seen yet, as most of a journal's are: the old position is put back.
            if let position = positions.updateValue(values.count, forKey: node) {
                positions[node] = position
                values[position] = newValue
            } else {
                values.append(newValue)
            }
        }
    }

    /// Adds the records of `other`; for a node both hold, `combine` picks the record kept (the first argument is
    /// this one's).
    package mutating func merge(
        _ other: LatestRecords, combine: (JournalRecord, JournalRecord) -> JournalRecord
    ) {
        for record in other.values {
            self[record.node] = self[record.node].map { combine($0, record) } ?? record
        }
    }
}
