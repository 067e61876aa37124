import ArgumentParser
import FlowKit

/// `--shard K/N` and `--gather`: one part of a run split over machines.
struct ShardOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Run only shard K of N (K from 1): its block of forEach items and what depends only on them.",
            valueName: "K/N"))
    var shard: String?

    @Flag(help: "Run the gather tasks (and what follows them) after every shard finished, and merge the reports.")
    var gather = false

    func validate() throws {
        if shard != nil && gather {
            throw ValidationError("--shard and --gather exclude each other: run the shards first, then --gather once")
        }
        if let shard {
            do { _ = try Shard(parsing: shard) } catch { throw ValidationError("--shard: \(error)") }
        }
    }

    /// The part of the plan these flags ask for.
    var part: SessionPart.Request {
        if let shard, let parsed = try? Shard(parsing: shard) { return .shard(parsed) }
        return gather ? .gather : .whole
    }
}
