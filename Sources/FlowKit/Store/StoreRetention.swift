import Foundation

/// Which of a workflow's results `flowrun cache clean` keeps: none (the store is emptied), each node's latest,
/// those made within an age, those that fit in a size — the limits compose.
///
/// An age counts from the start of the run that made a result, not from its last use: a cached run records
/// nothing, and a store in a bucket could not record a read without writing to the bucket on every run.
package struct StoreRetention: Sendable, Equatable {
    /// Keep only the latest record of each node (and of each file it wrote): what the next run can reuse.
    package var keepLast: Bool
    /// Drop the results of runs that started longer ago than this.
    package var maxAge: Duration?
    /// Drop results, superseded ones first and then the oldest, until the blobs and file copies the rest point at
    /// take at most this many bytes (the journal itself not counted; a result that stores nothing is kept).
    package var maxSize: Int64?

    package init(keepLast: Bool = false, maxAge: Duration? = nil, maxSize: Int64? = nil) {
        self.keepLast = keepLast
        self.maxAge = maxAge
        self.maxSize = maxSize
    }

    /// Whether no result is kept: `cache clean` with no limit empties the workflow's part of the store.
    package var keepsNothing: Bool { !keepLast && maxAge == nil && maxSize == nil }

    /// What one result takes in the store: its blob and the copy of the file it wrote, each named by its digest
    /// (a name shared by two results is counted once).
    package typealias StoredObject = (name: String, bytes: Int64)

    /// The records of `records` (a journal's, in the order written) that are kept, in that order.
    /// - Parameters:
    ///   - now: The time ages count back from.
    ///   - objects: What a record's result takes in the store, for ``maxSize``.
    package func kept(
        _ records: [JournalRecord], now: Date = Date(), objects: (JournalRecord) -> [StoredObject] = { _ in [] }
    ) -> [JournalRecord] {
        if keepsNothing { return [] }
        var kept = keepLast ? RunStore.latestOfEach(records) : records
        if let maxAge {
            let oldest = now.addingTimeInterval(-maxAge.seconds)
            // A run time that does not read as one is kept: only what is known to be old is dropped.
            kept = kept.filter { record in Self.start(of: record).map { $0 >= oldest } ?? true }
        }
        if let maxSize { kept = Self.fitting(kept, in: maxSize, objects: objects) }
        return kept
    }

    /// `records` less the superseded ones and then the oldest, until what the rest point at fits in `limit`.
    private static func fitting(
        _ records: [JournalRecord], in limit: Int64, objects: (JournalRecord) -> [StoredObject]
    ) -> [JournalRecord] {
        let held = records.map(objects)
        var users: [String: Int] = [:]
        var sizes: [String: Int64] = [:]
        for object in held.joined() {
            users[object.name, default: 0] += 1
            sizes[object.name] = object.bytes
        }
        var total = sizes.values.reduce(0, +)
        guard total > limit else { return records }
        var latest = Set<Int>()
        var seen = Set<String>()
        for index in records.indices.reversed() where seen.insert(records[index].node).inserted {
            latest.insert(index)
        }
        let order = records.indices.filter { !latest.contains($0) } + records.indices.filter(latest.contains)
        var dropped = Set<Int>()
        // A result that stores nothing frees nothing: it is never dropped for size.
        for index in order where total > limit && !held[index].isEmpty {
            dropped.insert(index)
            for object in held[index] {
                users[object.name, default: 1] -= 1
                if users[object.name] == 0 { total -= object.bytes }
            }
        }
        return records.indices.filter { !dropped.contains($0) }.map { records[$0] }
    }

    /// When the run that made a record started (its id is its start time in ISO 8601).
    static func start(of record: JournalRecord) -> Date? {
        try? Date(record.run, strategy: .iso8601)
    }

    // MARK: Parsing

    /// The units of an age, smallest first.
    private static let ageUnits: [(suffix: Character, seconds: Int64)] = [
        ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400), ("w", 604_800),
    ]

    /// Parses an age as `--max-age` takes it: a whole number with a unit, `45s`, `90m`, `12h`, `30d` or `2w`.
    /// - Returns: The age, or `nil` when the text is not one.
    package static func age(_ text: String) -> Duration? {
        let units = ageUnits
        guard let last = text.last, let unit = units.first(where: { $0.suffix == last }),
            let amount = Int64(text.dropLast()), amount >= 0, text.dropLast().allSatisfy(\.isNumber),
            amount <= Int64.max / unit.seconds / 1_000
        else { return nil }
        return .seconds(amount * unit.seconds)
    }

    /// An age as ``age(_:)`` reads it, in the largest unit that divides it (`1h`, `90m`).
    package static func text(ofAge age: Duration) -> String {
        let seconds = age.components.seconds
        guard seconds > 0 else { return "0s" }
        let unit = ageUnits.last { seconds % $0.seconds == 0 } ?? ageUnits[0]
        return "\(seconds / unit.seconds)\(unit.suffix)"
    }

    /// Parses a size as `--max-size` takes it: a number with a unit, decimal (`500MB`, `10GB`, `1.5TB`, `K`, `M`,
    /// `G`, `T` alike) or binary (`512MiB`, `10GiB`); a bare number is bytes.
    /// - Returns: The number of bytes, or `nil` when the text is not a size.
    package static func size(_ text: String) -> Int64? {
        let units: [(suffix: String, bytes: Double)] = [
            ("KiB", 0x400), ("MiB", 0x10_0000), ("GiB", 0x4000_0000), ("TiB", 0x100_0000_0000),
            ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12),
            ("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12), ("B", 1),
        ]
        let unit = units.first { text.uppercased().hasSuffix($0.suffix.uppercased()) } ?? ("", 1)
        let number = text.dropLast(unit.suffix.count)
        guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }), let amount = Double(number),
            amount.isFinite, amount * unit.bytes < 9e18
        else { return nil }
        return Int64((amount * unit.bytes).rounded())
    }
}
