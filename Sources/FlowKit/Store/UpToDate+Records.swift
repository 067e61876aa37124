extension UpToDate {
    /// The store's record of each node that its decision used, looked up rather than copied: a node's own latest
    /// record, or a result of the same key another node recorded (``RunStore/record(withKey:)``). Only the latter
    /// are held here; an unchanged rerun of 200,000 nodes keeps no table of its own.
    package struct Records: Sendable {
        /// The store's latest record per node id (shared with the store, not copied).
        private let latest: LatestRecords
        /// The plan's nodes, whose ids the records are found by (shared with the plan, not copied).
        private let nodes: [PlannedNode]
        /// The nodes whose own record has another key and which a result of their key serves, by node index.
        package private(set) var foundByKey: [Int: JournalRecord]

        init(latest: LatestRecords, nodes: [PlannedNode], foundByKey: [Int: JournalRecord] = [:]) {
            self.latest = latest
            self.nodes = nodes
            self.foundByKey = foundByKey
        }

        /// The record of the node at `index`; `nil` when the store has none.
        package subscript(index: Int) -> JournalRecord? {
            if let found = foundByKey[index] { return found }
            return latest.isEmpty ? nil : latest[nodes[index].id]
        }

        /// Notes that the result `record`, of the node's key, serves the node at `index`.
        mutating func serve(_ index: Int, with record: JournalRecord) {
            foundByKey[index] = record
        }

        /// The records of some nodes, by their new indices (``UpToDate/restricted(to:)``).
        func restricted(to indices: [Int]) -> Records {
            var found: [Int: JournalRecord] = [:]
            for (newIndex, oldIndex) in indices.enumerated() { found[newIndex] = foundByKey[oldIndex] }
            return Records(latest: latest, nodes: indices.map { nodes[$0] }, foundByKey: found)
        }
    }
}
