/// What a ``RunSession`` would do, decided without running anything or locking the store: the nodes of its part
/// of the plan and, with a store, which of them are up to date.
public struct RunPreview: Sendable {
    /// The nodes the session runs: the whole plan, or a shard's or the gather phase's part of it.
    public let plan: Plan
    /// The store's folder; `nil` when the session uses none.
    public let storeDirectory: String?
    /// How many results the decisions drew on: the store's, and for a gather phase the shards' too.
    public let recordedResults: Int
    /// The decisions for ``plan``; `nil` without a store, or when it holds nothing (then every node runs and no
    /// key is computed).
    package let decisions: UpToDate?
    /// How many items each list made at run time has, by fan-out task index, as the store last recorded it: a
    /// shard's or the gather phase's plan holds only some of them.
    package var recordedListSizes: [Int: Int] = [:]

    /// How many nodes of ``plan`` would run; the others are up to date.
    public var nodesToRun: Int {
        decisions.map { $0.causes.lazy.filter { $0 != nil }.count } ?? plan.nodes.count
    }
}
