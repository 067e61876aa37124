import ArgumentParser
import FlowKit

/// `--lists`, `--shard K/N` and `--gather`: one part of a run split over machines.
struct ShardOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Run only shard K of N (K from 1): its block of forEach items (of a list made at run time, the items whose keys it draws) and what depends only on them.",
            valueName: "K/N"))
    var shard: String?

    @Flag(help: "Run the gather tasks (and what follows them) after every shard finished, and merge the reports.")
    var gather = false

    @Flag(
        help:
            "Run only the tasks that make lists at run time (forEach: { from: TASK }) and record the lists for the shards, which replay them from the store."
    )
    var lists = false

    func validate() throws {
        if shard != nil && gather {
            throw ValidationError("--shard and --gather exclude each other: run the shards first, then --gather once")
        }
        if lists && (shard != nil || gather) {
            throw ValidationError(
                "--lists excludes --shard and --gather: run --lists once, then the shards, then --gather once")
        }
        if let shard {
            do { _ = try Shard(parsing: shard) } catch { throw ValidationError("--shard: \(error)") }
        }
    }

    /// The part of the plan these flags ask for.
    var part: SessionPart.Request {
        if let shard, let parsed = try? Shard(parsing: shard) { return .shard(parsed) }
        return gather ? .gather : lists ? .lists : .whole
    }
}
