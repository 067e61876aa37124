import Foundation
import Testing

/// A list made at run time split over machines that share nothing but a store in a bucket (SeaweedFS): the lists
/// step on one, a shard on each of two others — which replay the list from the bucket —, the gather on a fourth.
@Suite(.serialized, .enabled(if: SeaweedServer.unavailable == nil, Comment(rawValue: SeaweedServer.unavailable ?? "")))
struct RunTimeListBucketTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    /// A machine of its own: a folder with the workflow and a cache folder (where the bucket's store is pulled).
    private func machine(_ name: String) throws -> (folder: URL, environment: [String: String]) {
        try RunTimeListShardTests.writeFlow(in: scratch, at: "\(name)/flow.yaml")
        return (scratch.url.appendingPathComponent(name), ["XDG_CACHE_HOME": scratch.path("\(name)/cache")])
    }

    private func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: scratch.path(path), encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init)
    }

    @Test func shardsOnMachinesSharingOnlyTheBucketReplayTheListsStepsList() async throws {
        let server = try SeaweedServer(buckets: ["state"])
        defer { server.stop() }
        let store = ["flow.yaml", "--no-progress", "--verbose", "--state-dir", "s3://state/runs/flow"]
        let lists = try await BucketStoreCLITests.run(store + ["--lists"], on: try machine("lists"), server)
        #expect(lists.status == 0, "\(lists.stdout)\(lists.stderr)")
        for (index, name) in ["one", "two"].enumerated() {
            let shard = try await BucketStoreCLITests.run(
                store + ["--shard", "\(index + 1)/2"], on: try machine(name), server)
            #expect(shard.status == 0, "\(shard.stdout)\(shard.stderr)")
            #expect(BucketStoreCLITests.status(of: "list", in: shard.stdout) == "cached", "\(shard.stdout)")
        }
        let gather = try await BucketStoreCLITests.run(store + ["--gather"], on: try machine("gather"), server)
        #expect(gather.status == 0, "\(gather.stdout)\(gather.stderr)")

        #expect(lines("lists/produced.txt") == ["ran"])
        #expect(["one", "two", "gather"].allSatisfy { lines("\($0)/produced.txt").isEmpty })
        let (one, two) = (lines("one/ran.txt"), lines("two/ran.txt"))
        #expect(Set(one).isDisjoint(with: two))
        #expect((one + two).sorted() == RunTimeListShardTests.items.sorted())
        #expect(lines("gather/all.txt") == RunTimeListShardTests.items)
    }
}
