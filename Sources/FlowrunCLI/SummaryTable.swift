import FlowKit
import Foundation

/// What is printed after a run: a line per node that failed by itself, with the dependents its failure skipped,
/// pointing at its task in the workflow, then the totals; every node in a table before them with `--verbose`.
struct SummaryTable {
    let report: RunReport
    let terminal: Terminal
    /// List every node in a table: node, status, queue, duration, attempts, cause.
    let listAll: Bool
    /// Print only the failures.
    let quiet: Bool

    /// The summary, every piece of user text made visible (``Terminal/visible(_:)``), painted when colours are
    /// on: print it with ``Terminal/printPainted(_:)``.
    func render() -> String {
        var out = listAll && !quiet ? table() : ""
        let failures = failureLines()
        if !failures.isEmpty { out += (out.isEmpty ? "" : "\n") + failures + (quiet ? "" : "\n") }
        if !quiet {
            let unlisted =
                report.nodes.count - (report.totals[.succeeded] ?? 0) - (report.totals[.cached] ?? 0)
                - (report.totals[.restored] ?? 0)
                - report.failureCount
            if !listAll && unlisted > 0 {
                out += "(--verbose lists every node with its cause)\n"
            }
            out += totals() + "\n"
        }
        return out
    }

    /// Every node, one row each.
    private func table() -> String {
        let rows = report.nodes
        guard !rows.isEmpty else { return "" }
        let header = ["NODE", "STATUS", "QUEUE", "DURATION", "ATTEMPTS", "CAUSE"]
        let cells = rows.map { node in
            [
                NodeName.forTerminal(node.id, shortenedTo: NodeName.tableWidth), node.status.rawValue,
                Terminal.visible(node.queue), node.duration.map(Self.format) ?? "-", String(node.attempts),
                Terminal.visible(node.cause ?? ""),
            ]
        }
        let widths = (0..<header.count).map { column in
            ([header[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0
        }
        var out = Self.line(header, widths: widths) + "\n"
        for (row, node) in zip(cells, rows) {
            var line = Self.line(row, widths: widths)
            if terminal.colors {
                line = line.replacingOccurrences(
                    of: " " + node.status.rawValue + " ",
                    with: " " + terminal.paint(node.status.rawValue, node.status) + " ")
            }
            out += line + "\n"
        }
        return out
    }

    /// A line per failure, as a compiler would print it: `path:line:col: error: node failed: cause — 12
    /// dependents skipped`, pointing at the task in the workflow (editors jump there).
    private func failureLines() -> String {
        let failed = report.rootFailures(limit: Self.failureListingLimit)
        guard !failed.isEmpty else { return "" }
        var out = ""
        for failure in failed {
            out += Terminal.visible(Self.describe(failure)) + "\n"
        }
        let count = report.failureCount
        if count > failed.count {
            out += "(\(count - failed.count) more failures; --report lists every one)\n"
        }
        return out
    }

    /// `path:line:col: error: node failed: cause — 12 dependents skipped`, the location left out when the node
    /// has none.
    static func describe(_ failure: RunReport.RootFailure) -> String {
        let node = failure.node
        let severity = node.continueOnError ? "warning" : "error"
        var line =
            (node.location.map { "\($0): " } ?? "") + "\(severity): \(NodeName.forTerminal(node.id)) failed: "
            + (node.cause ?? "no cause given")
        let skipped = failure.skippedDependents
        if skipped > 0 { line += " — \(skipped) dependent\(skipped == 1 ? "" : "s") skipped" }
        return line
    }

    /// Up to this many failures are named, one line each.
    static let failureListingLimit = 20

    /// The last line: how many nodes ended how, and how long the run took.
    func totals() -> String {
        let totals = report.totals
        let parts = [NodeStatus.succeeded, .cached, .restored, .failed, .skipped, .cancelled].compactMap {
            status -> String? in
            guard let count = totals[status], count > 0 else { return nil }
            return terminal.paint("\(count) \(status.rawValue)", status)
        }
        var line =
            "\(report.nodes.count) node\(report.nodes.count == 1 ? "" : "s"): "
            + (parts.isEmpty ? "nothing to do" : parts.joined(separator: ", ")) + " in \(Self.format(report.duration))"
        if report.interrupted { line += " (interrupted)" }
        return line
    }

    private static func line(_ cells: [String], widths: [Int]) -> String {
        zip(cells, widths).map { $0.padded(to: $1) }.joined(separator: "  ").trailingSpacesTrimmed
    }

    static func format(_ seconds: Double) -> String {
        seconds < 1 ? String(format: "%.0fms", seconds * 1000) : String(format: "%.2fs", seconds)
    }
}
