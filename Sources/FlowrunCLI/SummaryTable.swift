import FlowKit
import Foundation

/// The table printed after a run: node, status, queue, duration, attempts, cause; then the totals.
struct SummaryTable {
    let report: RunReport
    let terminal: Terminal
    /// List every node, not only the ones that did not succeed, even in large runs.
    let listAll: Bool
    /// Print only the nodes that did not succeed.
    let quiet: Bool

    /// Up to this many nodes, every node is listed.
    static let fullListingLimit = 40

    /// The table, every piece of user text made visible (``Terminal/visible(_:)``), painted when colours are on:
    /// print it with ``Terminal/printPainted(_:)``.
    func render() -> String {
        let showAll = !quiet && (listAll || report.nodes.count <= Self.fullListingLimit)
        // Statuses first: making every node of a million-node run only to drop the succeeded ones is slow.
        let nodes = report.nodes
        let rows = nodes.indices.filter {
            showAll || (nodes.status(at: $0) != .succeeded && nodes.status(at: $0) != .cached)
        }.map { nodes[$0] }
        var out = ""
        if !rows.isEmpty {
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
            out += Self.line(header, widths: widths) + "\n"
            for (row, node) in zip(cells, rows) {
                var line = Self.line(row, widths: widths)
                if terminal.colors {
                    line = line.replacingOccurrences(
                        of: " " + node.status.rawValue + " ",
                        with: " " + terminal.paint(node.status.rawValue, node.status) + " ")
                }
                out += line + "\n"
            }
        }
        out += failureLines()
        let hidden = report.nodes.count - rows.count
        if !quiet {
            if hidden > 0 {
                out += "(\(hidden) succeeded or cached node\(hidden == 1 ? "" : "s") not listed; --verbose lists all)\n"
            }
            out += totals() + "\n"
        }
        return out
    }

    /// Every failure again, as a compiler would print it: `path:line:col: error: node failed: cause`, pointing
    /// at the task in the workflow (editors jump there).
    private func failureLines() -> String {
        let nodes = report.nodes
        let failed = nodes.indices.filter { nodes.status(at: $0) == .failed }.map { nodes[$0] }
            .filter { $0.location != nil }
        guard !failed.isEmpty else { return "" }
        let listed = failed.prefix(Self.failureListingLimit)
        var out = "\n"
        for node in listed {
            let severity = node.continueOnError ? "warning" : "error"
            out +=
                Terminal.visible(
                    "\(node.location ?? ""): \(severity): \(NodeName.forTerminal(node.id)) failed: "
                        + "\(node.cause ?? "no cause given")") + "\n"
        }
        if failed.count > listed.count {
            out += "(\(failed.count - listed.count) more failures; --report lists every one)\n"
        }
        return out + "\n"
    }

    /// Up to this many failures are repeated with their location under the table.
    static let failureListingLimit = 20

    /// The last line: how many nodes ended how, and how long the run took.
    func totals() -> String {
        let totals = report.totals
        let parts = [NodeStatus.succeeded, .cached, .failed, .skipped, .cancelled].compactMap { status -> String? in
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
