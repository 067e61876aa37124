import FlowBasics
import FlowKit

extension HTMLReport {
    /// Cells per band of the grid: items wrap into bands of this many columns.
    static let gridBandWidth = 100
    /// Cells drawn at most; past it each cell stands for a run of items (100,000 nodes stay a few hundred KB).
    static let maxGridCells = 20_000
    /// Tasks that run once get a labelled row each up to this many.
    static let maxLabelledRows = 40

    /// Items × tasks, one coloured cell per node with its cause on hover, in bands of ``gridBandWidth`` items;
    /// tasks that are not expanded get one cell each in a band of their own. Past ``maxGridCells`` a cell stands
    /// for several items, coloured by the worst status among them, its tooltip counting each status.
    func writeGrid(into out: HTMLStream) throws(HTMLStream.Failure) {
        let expanded = index.tasks.indices.filter { task in index.nodesOfTask[task].contains { index.item[$0] != nil } }
        let expandedSet = Set(expanded)
        let single = index.tasks.indices.filter { !expandedSet.contains($0) && !index.nodesOfTask[$0].isEmpty }
        try out.raw("<section class=\"card grid\" id=\"grid\">\n<h2>Status grid</h2>\n")
        let items = index.itemCount
        let perCell = max(1, (items * expanded.count + Self.maxGridCells - 1) / Self.maxGridCells)
        if perCell > 1 {
            try out.raw(
                "<p class=\"hint\">\(report.nodes.count) nodes: each cell stands for \(perCell) items, coloured by the "
                    + "worst status among them; hover for the counts.</p>\n")
        } else {
            try out.raw(
                "<p class=\"hint\">One cell per node: items across, tasks down. Hover a cell for its cause.</p>\n")
        }
        // Each expanded task's nodes by item.
        var byItem: [[Int]] = []
        for task in expanded {
            var row = [Int](repeating: -1, count: items)
            for node in index.nodesOfTask[task] { if let item = index.item[node], item < items { row[item] = node } }
            byItem.append(row)
        }
        let cells = (items + perCell - 1) / perCell
        for bandStart in stride(from: 0, to: cells, by: Self.gridBandWidth) {
            let bandEnd = min(bandStart + Self.gridBandWidth, cells)
            try out.raw("<div class=\"band\">\n<div class=\"axis\">")
            try out.text(
                perCell == 1
                    ? "items \(bandStart)–\(bandEnd - 1)"
                    : "items \(bandStart * perCell)–\(min(bandEnd * perCell, items) - 1)")
            try out.raw("</div>\n")
            for (row, task) in expanded.enumerated() {
                try writeGridLabel(task, into: out)
                for cell in bandStart..<bandEnd {
                    let covered = cell * perCell..<min((cell + 1) * perCell, items)
                    try writeCell(covered.map { byItem[row][$0] }.filter { $0 >= 0 }, items: covered, into: out)
                }
                try out.raw("</div>\n")
            }
            try out.raw("</div>\n")
        }
        if !single.isEmpty {
            try out.raw("<div class=\"band\">\n<div class=\"axis\">once per run</div>\n")
            if single.count <= Self.maxLabelledRows {
                for task in single {
                    try writeGridLabel(task, into: out)
                    for node in index.nodesOfTask[task] { try writeCell([node], items: 0..<1, into: out) }
                    try out.raw("</div>\n")
                }
            } else {
                // Too many for a row each (a generated graph of thousands of tasks): cells wrap, ids on hover.
                try out.raw("<div class=\"row wrap\">")
                for task in single {
                    for node in index.nodesOfTask[task] { try writeCell([node], items: 0..<1, into: out) }
                }
                try out.raw("</div>\n")
            }
            try out.raw("</div>\n")
        }
        try out.raw("</section>\n")
    }

    private func writeGridLabel(_ task: Int, into out: HTMLStream) throws(HTMLStream.Failure) {
        let id = MarkupText.escaped(index.tasks[task].id, for: .html)
        try out.raw("<div class=\"row\" data-task=\"\(id)\"><b title=\"\(id)\">\(id)</b>")
    }

    /// One cell: a node, or the nodes of a run of items (aggregated), or an empty place (no node of this task).
    private func writeCell(_ nodes: [Int], items: Range<Int>, into out: HTMLStream) throws(HTMLStream.Failure) {
        guard let only = nodes.first else { return try out.raw("<i></i>") }
        if nodes.count == 1 {
            let node = report.nodes[only]
            try out.raw("<i class=\"\(StatusPalette.cssClass(node.status))\" title=\"")
            try out.text(summary(of: node))
            return try out.raw("\"></i>")
        }
        var counts: [NodeStatus: Int] = [:]
        for node in nodes { counts[report.nodes[node].status, default: 0] += 1 }
        let worst = StatusPalette.ordered.first { counts[$0] != nil } ?? .succeeded
        let breakdown = StatusPalette.ordered.compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
        let firstFailure = nodes.first { report.nodes[$0].status == .failed }.map {
            "\n" + summary(of: report.nodes[$0])
        }
        try out.raw("<i class=\"\(StatusPalette.cssClass(worst))\" title=\"")
        try out.text(
            "items \(items.lowerBound)–\(items.upperBound - 1): " + breakdown.joined(separator: ", ")
                + (firstFailure ?? ""))
        try out.raw("\"></i>")
    }
}
