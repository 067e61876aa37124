import ArgumentParser
import FlowKit
import Foundation

/// `flowrun report merge A.json B.json… [-o merged.json]`: the reports of a run's parts as one.
struct MergeReportsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the reports of a run's shards (and gather phase) so every node appears once.",
        discussion: """
            A node that ran in several shards keeps the record of a shard where it succeeded. Times are put on \
            one clock, from the earliest start. Reports of different workflows are refused.
            """)

    @Argument(help: ArgumentHelp("The reports to merge.", valueName: "report.json"))
    var reports: [String]

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Write the merged report here (default: stdout).", valueName: "merged.json"))
    var output: String?

    func validate() throws {
        if reports.isEmpty { throw ValidationError("name at least one report to merge") }
    }

    func run() throws {
        let terminal = Terminal()
        var parts: [RunReport] = []
        for path in reports {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                terminal.error("error: cannot read '\(path)': \(RunCommand.reason(error))\n")
                throw ExitCode(2)
            }
            do {
                parts.append(try RunReport(jsonData: data))
            } catch {
                terminal.error(
                    "error: '\(path)' is not a flowrun run report: \(RenderReportCommand.describe(error))\n")
                throw ExitCode(2)
            }
        }
        let paths = Set(parts.map(\.path))
        if paths.count > 1 {
            terminal.error(
                "error: the reports come from different workflows: \(paths.sorted().joined(separator: ", "))\n")
            throw ExitCode(2)
        }
        warnAboutMissingShards(parts, terminal: terminal)
        let merged = RunReport.merging(parts)
        do {
            if let output {
                try merged.write(toPath: output)
            } else {
                terminal.print(String(decoding: try merged.jsonData(), as: UTF8.self))
            }
        } catch let failure as FileWriteError {
            terminal.error("error: \(failure)\n")
            throw ExitCode(1)
        } catch {
            terminal.error("error: cannot write \(output ?? "the merged report"): \(RunCommand.reason(error))\n")
            throw ExitCode(1)
        }
    }

    /// Shards of the same split that are not among the reports: the merged report lacks their nodes.
    private func warnAboutMissingShards(_ parts: [RunReport], terminal: Terminal) {
        let shards = parts.compactMap(\.shard)
        for count in Set(shards.map(\.count)).sorted() {
            let present = Set(shards.filter { $0.count == count }.map(\.index))
            let absent = (1...count).filter { !present.contains($0) }
            if !absent.isEmpty {
                let list = absent.map { "\($0)/\(count)" }.joined(separator: ", ")
                terminal.error("warning: no report of shard \(list): its nodes are not in the merged report\n")
            }
        }
    }
}
