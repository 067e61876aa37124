import FlowKit
import Foundation
import Testing

/// `flowrun export slurm --store s3://…`: every job keeps its results in the bucket.
struct BucketExportTests {
    @Test func theSlurmJobsRunWithTheStoreInTheBucket() async throws {
        let scratch = try Scratch()
        let workflow = try ShardCommandTests.thumbnails(in: scratch)
        let result = try await Flowrun.runOffPool([
            "export", "slurm", workflow, "--shards", "2", "--store", "s3://flowrun-state/runs",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let folder = scratch.path("w")
        #expect(
            lines.filter { $0.hasPrefix("exec ") || $0.hasPrefix("# The workflow") || $0.hasPrefix("mkdir") } == [
                "# The workflow and its inputs must be at the same path on every node; the store is in "
                    + "s3://flowrun-state/runs.",
                "mkdir -p \(folder)/.flowrun/slurm/",
                "exec \"$FLOWRUN\" \(folder)/thumbs.yaml --shard \"$SLURM_ARRAY_TASK_ID/2\" --state-dir "
                    + "s3://flowrun-state/runs --no-progress --max-concurrent 2",
                "exec \"$FLOWRUN\" \(folder)/thumbs.yaml --gather --state-dir s3://flowrun-state/runs --no-progress "
                    + "--max-concurrent 2 --report \(folder)/.flowrun/thumbs.yaml.report.json",
            ], "\(result.stdout)")
    }

    @Test(arguments: [
        (["--store", "/shared/state"], "Error: --store must be s3://BUCKET/PREFIX, found '/shared/state'"),
        (["--store", "s3://b/p", "--state-dir", "/shared"], "Error: --state-dir and --store exclude each other"),
    ])
    func aSlurmStoreThatIsNotABucketIsRefused(options: [String], message: String) async throws {
        let scratch = try Scratch()
        let workflow = try ShardCommandTests.thumbnails(in: scratch)
        let result = try await Flowrun.runOffPool(["export", "slurm", workflow, "--shards", "2"] + options)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }
}
