/// The store's latest record of each node, by node id: what a run decides with.
///
/// Most come from the journal's index (``JournalIndex``) and stay there as bytes: a record is decoded only when
/// asked for, and a key read in place. The records read from the journal past the index, or set, are kept in one
/// array in the order their nodes were first recorded, found through a table of node id → place, and hide the
/// index's record of the same node. A record is known by its position: the index's entries first, then the array's.
package struct LatestRecords: Sendable, ExpressibleByDictionaryLiteral {
    /// The records as of the journal's index, when it had one that was intact and current.
    private let indexed: JournalIndex?
    /// Where each node's record in ``added`` is.
    private var places: [String: Int] = [:]
    /// The records set since the index, in the order their nodes were first set; `nil` for one removed.
    private var added: [JournalRecord?] = []
    /// The index's entries a record in ``added`` replaced, or that were removed.
    private var hidden: Set<Int> = []
    /// How many records ``added`` holds (not removed).
    private var addedCount = 0

    /// No records.
    package init() {
        indexed = nil
    }

    /// The records of an index, and none other yet.
    init(indexed: JournalIndex?) {
        self.indexed = indexed
    }

    package init(dictionaryLiteral elements: (String, JournalRecord)...) {
        self.init()
        for (node, record) in elements { self[node] = record }
    }

    /// How many nodes have a record.
    package var count: Int { (indexed?.count ?? 0) - hidden.count + addedCount }

    /// Whether no node has a record.
    package var isEmpty: Bool { count == 0 }

    /// The index the records start from.
    var index: JournalIndex? { indexed }

    /// Where the latest record of a node is (for ``record(at:)`` and ``key(at:)``).
    /// - Parameter previous: The position of the node looked up before, if any: nodes looked up in the order of
    ///   their ids are found faster (``JournalIndex/entry(of:after:)``).
    package func position(of node: String, after previous: Int? = nil) -> Int? {
        // The index first: a node whose entry no later record hides is in nothing else, so a run whose journal has
        // a few records past the index hashes only their nodes' ids into the table of those.
        if let entry = indexed?.entry(of: node, after: previous.flatMap { $0 < indexedCount ? $0 : nil }),
            hidden.isEmpty || !hidden.contains(entry)
        {
            return entry
        }
        guard !places.isEmpty, let place = places[node], added[place] != nil else { return nil }
        return indexedCount + place
    }

    /// The record at a position ``position(of:)`` gave; `nil` only when the index's bytes of it do not decode.
    package func record(at position: Int) -> JournalRecord? {
        position < indexedCount ? indexed?.record(of: position) : added[position - indexedCount]
    }

    /// The key of the record at a position ``position(of:)`` gave, read in place.
    package func key(at position: Int) -> NodeKey? {
        position < indexedCount ? indexed?.key(of: position) : added[position - indexedCount]?.key
    }

    /// The positions of every node's record: the index's first, then the others in the order set.
    package var positions: [Int] {
        (0..<indexedCount).filter { hidden.isEmpty || !hidden.contains($0) }
            + added.indices.filter { added[$0] != nil }.map { indexedCount + $0 }
    }

    /// Every node's record, decoded (maintenance: what `cache status` counts).
    package var values: [JournalRecord] { positions.compactMap(record(at:)) }

    /// The latest record of a node; setting one replaces the node's earlier record.
    package subscript(node: String) -> JournalRecord? {
        get { position(of: node).flatMap(record(at:)) }
        set {
            let entry = indexed?.entry(of: node)
            if let entry { hidden.insert(entry) }
            if let place = places[node] {
                if added[place] == nil, newValue != nil { addedCount += 1 }
                if added[place] != nil, newValue == nil { addedCount -= 1 }
                added[place] = newValue
            } else if let newValue {
                places[node] = added.count
                added.append(newValue)
                addedCount += 1
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

    private var indexedCount: Int { indexed?.count ?? 0 }
}
