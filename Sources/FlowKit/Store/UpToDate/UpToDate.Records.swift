extension UpToDate {
    /// The store's record of each node that its decision used, looked up rather than copied: a node's own latest
    /// record, or a result of the same key another node recorded (``RunStore/record(withKey:)``). Only the latter
    /// are held here; of an unchanged rerun of 200,000 nodes it keeps only where their records are (4 bytes a node).
    package struct Records: Sendable {
        /// The store's latest record per node id (shared with the store, not copied).
        private let latest: LatestRecords
        /// Where each node's own latest record is in ``LatestRecords`` (``LatestRecords/position(of:)``), by node index, or -1: its id is
        /// looked up once, and the decisions, which ask for a node's record several times, find it by position.
        /// Empty when the store holds no record.
        private let positions: [Int32]
        /// The nodes whose own record has another key and which a result of their key serves, by node index.
        package private(set) var foundByKey: [Int: JournalRecord]

        /// No records: a cold store.
        init() {
            self.init(latest: [:], positions: [], foundByKey: [:])
        }

        /// Finds each node's own latest record, looking its id up once, in the plan's order (which the store's
        /// index mostly follows): the keys and every pass of the decisions then find it by position.
        init(latest: LatestRecords, nodes: [PlannedNode]) {
            var previous: Int?
            let positions: [Int32] =
                latest.isEmpty
                ? []
                : nodes.map { node in
                    let position = latest.position(of: node.id, after: previous)
                    previous = position ?? previous
                    return position.flatMap(Int32.init(exactly:)) ?? -1
                }
            self.init(latest: latest, positions: positions, foundByKey: [:])
        }

        private init(latest: LatestRecords, positions: [Int32], foundByKey: [Int: JournalRecord]) {
            self.latest = latest
            self.positions = positions
            self.foundByKey = foundByKey
        }

        /// Whether the store holds no record of any node.
        var isEmpty: Bool { latest.isEmpty }

        /// The record of the node at `index`; `nil` when the store has none.
        package subscript(index: Int) -> JournalRecord? {
            if !foundByKey.isEmpty, let found = foundByKey[index] { return found }
            guard !positions.isEmpty, positions[index] >= 0 else { return nil }
            return latest.record(at: Int(positions[index]))
        }

        /// The key of the record of the node at `index`, read in place: the decisions compare every node's key
        /// with its record's, and a copy of the record would take and drop a reference to each of its parts.
        package func key(of index: Int) -> NodeKey? {
            if !foundByKey.isEmpty, let found = foundByKey[index] { return found.key }
            guard !positions.isEmpty, positions[index] >= 0 else { return nil }
            return latest.key(at: Int(positions[index]))
        }

        /// Notes that the result `record`, of the node's key, serves the node at `index`.
        mutating func serve(_ index: Int, with record: JournalRecord) {
            foundByKey[index] = record
        }

        /// The records of some nodes, by their new indices (``UpToDate/restricted(to:)``).
        func restricted(to indices: [Int]) -> Records {
            var found: [Int: JournalRecord] = [:]
            for (newIndex, oldIndex) in indices.enumerated() { found[newIndex] = foundByKey[oldIndex] }
            return Records(
                latest: latest, positions: positions.isEmpty ? [] : indices.map { positions[$0] }, foundByKey: found)
        }
    }
}
