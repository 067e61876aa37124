import FlowKit
import Foundation
import Testing

/// `flowrun cache clean --max-age AGE --max-size SIZE` on a store in a folder: results older than the age go,
/// then superseded and old ones until the copies and blobs the rest point at fit (``StoreRetention``).
@Suite struct CacheLimitsTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try scratch.writeCopyWorkflow()
    }

    /// Runs `flowrun ARGUMENTS` with the store in `store/`; stdout with the run's time and the journal's size
    /// replaced.
    private func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        var result = try await Child.runFlowrun(arguments + ["--state-dir", "store"], in: scratch.url)
        result.stdout = result.stdout.replacing(#/run of [0-9T:-]+Z/#, with: "run of TIME")
            .replacing(#/journal\), [0-9.]+ (KiB|bytes)/#, with: "journal), SIZE")
        return result
    }

    private func summary(_ result: Flowrun.Result) -> String {
        (result.stdout.split(separator: "\n").last.map(String.init) ?? "").replacing(#/ in [0-9.]+m?s$/#, with: "")
    }

    @Test func maxSizeDropsTheOldestResultsUntilTheirCopiesFit() async throws {
        #expect(try await flowrun(["flow.yaml", "--no-progress", "--keep-outputs"]).status == 0)
        // Three copies of 8 bytes: one result that keeps a copy goes; the `read`s keep nothing and stay.
        let cleaned = try await flowrun(["cache", "clean", "--max-size", "16B", "flow.yaml"])
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(
            cleaned.stdout == """
                cleaned; store store: 5 results (5 records in the journal), SIZE, last recorded by the run of TIME
                stored outputs: 0 of this workflow; 0 blobs in the store, 0 bytes
                written files kept for restoring: 2, 16 bytes

                """)
        let rerun = try await flowrun(["flow.yaml", "--no-progress", "--keep-outputs"])
        // The `save` whose result went runs again, and the `read` it needs (a fetch's bytes are not kept).
        #expect(summary(rerun) == "6 nodes: 2 succeeded, 4 cached", "\(rerun.stdout)")
    }

    @Test func maxAgeDropsWhatRunsOlderThanItMade() async throws {
        #expect(try await flowrun(["flow.yaml", "--no-progress", "--keep-outputs"]).status == 0)
        let young = try await flowrun(["cache", "clean", "--max-age", "1h", "flow.yaml"])
        #expect(young.stdout.hasPrefix("cleaned; store store: 6 results (6 records in the journal)"), "\(young.stdout)")
        #expect(summary(try await flowrun(["flow.yaml", "--no-progress"])) == "6 nodes: 6 cached")

        let old = try await flowrun(["cache", "clean", "--max-age", "0s", "--keep-last", "flow.yaml"])
        #expect(
            old.stdout == """
                cleaned; store store: 0 results (0 records in the journal), SIZE
                stored outputs: 0 of this workflow; 0 blobs in the store, 0 bytes

                """, "\(old.stderr)")
        #expect(summary(try await flowrun(["flow.yaml", "--no-progress"])) == "6 nodes: 6 succeeded")
    }

    @Test(arguments: [
        (["--max-age", "30"], "--max-age '30' is not an age: write a whole number with s, m, h, d or w (30d)"),
        (
            ["--max-size", "10 GB"],
            "--max-size '10 GB' is not a size: write a number with B, KB, MB, GB, TB or KiB, MiB, GiB, TiB (10GB)"
        ),
        (
            ["--grace", "0s"],
            "--grace is for cleaning a store in a bucket (--state-dir s3://…); a local store is locked instead"
        ),
        (
            ["--stale", "--max-age", "1d"],
            "--stale keeps the store's results already; drop --keep-last, --max-age and --max-size"
        ),
    ])
    func aLimitThatIsNotOneIsAUsageError(_ flags: [String], message: String) async throws {
        #expect(try await flowrun(["flow.yaml", "--no-progress"]).status == 0)
        let refused = try await flowrun(["cache", "clean"] + flags + ["flow.yaml"])
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("Error: \(message)\n"), "\(refused.stderr)")
        #expect(summary(try await flowrun(["flow.yaml", "--no-progress"])) == "6 nodes: 6 cached")
    }
}
