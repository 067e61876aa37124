import Crypto

/// One part of a run split over machines: shard `index` of `count`, written `K/N` with `K` from 1 to `N` —
/// the numbering of a Slurm array (`--array=1-N`) and of Argo's `withSequence` (`start: 1`).
///
/// Items of a list known before the run (a glob, a list, a file) are split in contiguous blocks by their index:
/// shard `K` of `N` takes items `⌊(K−1)·M/N⌋ ..< ⌊K·M/N⌋` of a list of `M`, so blocks differ in size by at most one.
/// The split depends only on the list, which is sorted (a glob) or written (a list, a file), so every machine
/// computes the same one; a block keeps neighbouring items together and is named in messages as one range
/// ("items 50–99").
///
/// Items of a list made at run time (`forEach: { from: TASK }`) go by their key instead (``owner(ofItemKey:count:)``):
/// a block needs the whole list and its length, while a key names its shard alone — the same on every machine,
/// whatever the items' order, and as soon as the item is known, so a list whose items arrive one by one is split
/// as they arrive.
package struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// The shard's number, from 1 to ``count``.
    package let index: Int
    /// How many shards the run is split into.
    package let count: Int

    /// The most shards a run may be split into (the item limit of one workflow).
    package static let maxCount = ForEachExpansion.maxItems

    /// Creates shard `index` of `count`.
    /// - Throws: ``ShardError`` unless `1 ≤ index ≤ count ≤ maxCount`.
    package init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1, count <= Self.maxCount else {
            throw ShardError("the shard count must be from 1 to \(Self.maxCount), found \(count)")
        }
        guard index >= 1, index <= count else {
            throw ShardError("shard \(index)/\(count) does not exist: shards are numbered 1 to \(count)")
        }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`, as `--shard` takes it.
    /// - Throws: ``ShardError`` naming what is wrong with the text.
    package init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("'\(text)' is not a shard: write K/N, shard K (from 1) of N, e.g. 2/4")
        }
        try self.init(index: index, count: count)
    }

    package var description: String { "\(index)/\(count)" }

    /// The items of a list of `total` this shard runs.
    package func items(of total: Int) -> Range<Int> {
        (index - 1) * total / count..<index * total / count
    }

    /// Whether this shard runs the item of a list made at run time known by `key` (``ForEachItem/key``).
    package func runs(itemKey key: some StringProtocol) -> Bool {
        Self.owner(ofItemKey: key, count: count) == index
    }

    /// The shard, from 1 to `count`, that runs the item of a list made at run time known by `key`: its
    /// ``hash(ofItemKey:)`` modulo `count`, plus 1.
    package static func owner(ofItemKey key: some StringProtocol, count: Int) -> Int {
        owner(ofKeyHash: hash(ofItemKey: key), count: count)
    }

    /// The shard, from 1 to `count`, of an item key whose ``hash(ofItemKey:)`` is `hash`.
    package static func owner(ofKeyHash hash: UInt64, count: Int) -> Int {
        Int(hash % UInt64(max(count, 1))) + 1
    }

    /// The first 8 bytes of the SHA-256 of a key's UTF-8, big-endian. SHA-256 rather than Swift's `hashValue`,
    /// which is seeded afresh in every process; its bytes are spread evenly, so shards get about `M/N` items each.
    package static func hash(ofItemKey key: some StringProtocol) -> UInt64 {
        SHA256.hash(data: Array(key.utf8)).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The shard that runs item `item` of a list of `total`.
    package static func containing(item: Int, of total: Int, count: Int) -> Int {
        // The smallest K with item < ⌊K·total/count⌋.
        (item + 1) * count / total + ((item + 1) * count % total == 0 ? 0 : 1)
    }
}

/// A `--shard` that is not `K/N` with `1 ≤ K ≤ N`.
package struct ShardError: Error, Sendable, CustomStringConvertible {
    package let description: String

    init(_ description: String) { self.description = description }
}

extension Shard: Codable {
    /// A shard reads and writes as its `K/N` text, as `--shard` takes it.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
