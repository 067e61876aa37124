import Foundation

/// Where the shards of a workflow leave their reports for the gather phase: `shards/` in the state folder,
/// one `NAME.shard-K-of-N.json` per shard, `NAME` the workflow's file name.
struct ShardReports {
    /// The folder of the reports.
    let directory: String
    /// The workflow file's name, the reports' prefix.
    let name: String

    init(workflowPath: String, stateDirectory: String?) {
        let workflow = URL(fileURLWithPath: workflowPath)
        let state = stateDirectory ?? workflow.deletingLastPathComponent().appendingPathComponent(".flowrun").path
        directory = URL(fileURLWithPath: state).appendingPathComponent("shards").path
        name = workflow.lastPathComponent
    }

    func path(of shard: Shard) -> String { "\(directory)/\(name).shard-\(shard.index)-of-\(shard.count).json" }

    /// Writes a shard's report where the gather phase looks for it.
    /// - Throws: ``SessionError/Code/shardReportNotWritten``: the gather would count the shard as missing.
    func write(_ report: RunReport) throws(SessionError) {
        guard let shard = report.shard else { return }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try report.write(toPath: path(of: shard))
        } catch {
            throw SessionError(
                .shardReportNotWritten,
                "cannot write the shard report \(path(of: shard)): \(SessionError.reason(error))")
        }
    }

    /// Every shard report of the workflow, by shard number.
    /// - Throws: ``SessionError/Code/shardReportUnreadable`` when reports of different splits (`-of-3` and
    ///   `-of-4`) lie side by side, or one cannot be read.
    func readAll() throws(SessionError) -> [Int: RunReport] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let prefix = name + ".shard-"
        var reports: [Int: RunReport] = [:]
        var counts = Set<Int>()
        for file in names.sorted() where file.hasPrefix(prefix) && file.hasSuffix(".json") {
            let path = "\(directory)/\(file)"
            do {
                let report = try RunReport(jsonData: Data(contentsOf: URL(fileURLWithPath: path)))
                guard let shard = report.shard else { continue }
                counts.insert(shard.count)
                reports[shard.index] = report
            } catch {
                throw SessionError(
                    .shardReportUnreadable,
                    "cannot read the shard report \(path): \(error.localizedDescription); nothing was run")
            }
        }
        if counts.count > 1 {
            let splits = counts.sorted().map { "\($0) shards" }.joined(separator: " and ")
            throw SessionError(
                .shardReportUnreadable,
                "\(directory) holds reports of runs split into \(splits): remove the stale ones "
                    + "(\(prefix)*-of-N.json); nothing was run")
        }
        return reports
    }
}
