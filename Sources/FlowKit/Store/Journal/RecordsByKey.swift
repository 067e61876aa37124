/// Where the latest record of each key is among a store's records (``RunStore/record(withKey:)``): a table of
/// positions in ``LatestRecords``, 4 bytes a slot, probed from the key's leading bits. The keys are not copied:
/// a probe compares the key where its record is. Of a store of 200,000 records it takes 2 MB, where a dictionary
/// from key to position took 16 MB of a rerun that changed one item.
struct RecordsByKey {
    /// Positions in ``LatestRecords``, -1 for an empty slot; a power of two of them, at most half full.
    private var slots: [Int32]

    /// The table of every record in `latest`; of two records with one key, the later position is found.
    init(_ latest: LatestRecords) {
        let positions = latest.positions
        var capacity = 16
        while capacity < positions.count * 2 { capacity <<= 1 }
        slots = [Int32](repeating: -1, count: capacity)
        let mask = capacity - 1
        for position in positions {
            // Past Int32's range a record is not found by key: its node runs, as with any result not found.
            guard let key = latest.key(at: position), let stored = Int32(exactly: position) else { continue }
            var slot = Self.firstSlot(of: key, mask: mask)
            while slots[slot] >= 0, latest.key(at: Int(slots[slot])) != key { slot = (slot + 1) & mask }
            slots[slot] = stored
        }
    }

    /// The position in `latest` (the records the table was made of) of the latest record with `key`.
    func position(of key: NodeKey, in latest: LatestRecords) -> Int? {
        let mask = slots.count - 1
        var slot = Self.firstSlot(of: key, mask: mask)
        while slots[slot] >= 0 {
            let position = Int(slots[slot])
            if latest.key(at: position) == key { return position }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// A key's first slot: its leading bits, which SHA-256 spreads evenly.
    private static func firstSlot(of key: NodeKey, mask: Int) -> Int {
        Int(truncatingIfNeeded: key.leadingBits) & mask
    }
}
