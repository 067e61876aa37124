import FlowBasics
import FlowKit
import Foundation

extension HTMLReport {
    /// Timeline geometry, in SVG units.
    private enum TimelineMetrics {
        static let labelWidth = 120.0
        static let plotWidth = 1180.0
        static let laneHeight = 16.0
        static let axisHeight = 22.0
    }
    /// Attempts drawn one by one at most; past it each lane shows its busy periods and only the critical path
    /// is drawn attempt by attempt.
    static let maxTimelineSpans = 20_000

    /// One lane per queue slot, one bar per attempt coloured by task (attempts that failed and were retried
    /// dashed and pale), the critical path outlined, and the path spelt out below.
    func writeTimeline(into out: HTMLStream) throws(HTMLStream.Failure) {
        var lanes: [String: Set<Int>] = [:]
        var spanCount = 0
        for node in report.nodes {
            for span in node.spans { lanes[node.queue, default: []].insert(span.lane) }
            spanCount += node.spans.count
        }
        let laneOrder = lanes.keys.sorted().flatMap { queue in lanes[queue, default: []].sorted().map { (queue, $0) } }
        guard !laneOrder.isEmpty else { return }
        var laneRow: [String: Int] = [:]
        for (row, lane) in laneOrder.enumerated() { laneRow["\(lane.0)#\(lane.1)"] = row }
        let length = max(report.duration, report.nodes.compactMap(\.end).max() ?? 0, 0.001)
        let scale = TimelineMetrics.plotWidth / length
        let width = TimelineMetrics.labelWidth + TimelineMetrics.plotWidth + 40  // room for the last tick's label
        let height = TimelineMetrics.axisHeight + Double(laneOrder.count) * TimelineMetrics.laneHeight + 4
        try out.raw("<section class=\"card\" id=\"timeline\">\n<h2>Timeline</h2>\n<p class=\"hint\">")
        let aggregated = spanCount > Self.maxTimelineSpans
        try out.raw(
            aggregated
                ? "\(spanCount) attempts: each lane shows when its slot was busy; the critical path is outlined."
                : "One lane per queue slot, one bar per attempt, coloured by task; retried attempts are dashed; "
                    + "the critical path is outlined.")
        try out.raw("</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"timeline\" ")
        try out.raw("width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">\n")
        try writeAxis(length: length, scale: scale, height: height, into: out)
        for (row, lane) in laneOrder.enumerated() {
            let y = TimelineMetrics.axisHeight + Double(row) * TimelineMetrics.laneHeight
            try out.raw("<text x=\"0\" y=\"\(Self.number(y + 12))\">")
            try out.text("\(Self.clipped(lane.0, to: 12)) \(lane.1 + 1)")
            try out.raw("</text><line class=\"lane\" x1=\"\(Int(TimelineMetrics.labelWidth))\" ")
            try out.raw("x2=\"\(Int(width))\" y1=\"\(Self.number(y + 15.5))\" y2=\"\(Self.number(y + 15.5))\"/>\n")
        }
        let critical = Set(index.criticalPath)
        func place(_ node: RunReport.Node, _ span: RunReport.Span) -> (x: Double, y: Double, width: Double) {
            let row = laneRow["\(node.queue)#\(span.lane)"] ?? 0
            return (
                TimelineMetrics.labelWidth + span.start * scale,
                TimelineMetrics.axisHeight + Double(row) * TimelineMetrics.laneHeight + 2,
                max((span.end - span.start) * scale, 0.8)
            )
        }
        if aggregated { try writeBusyPeriods(laneOrder: laneOrder, place: place, into: out) }
        // One group per task carries its colour and its filter key; bars carry only their place and their title.
        for task in index.tasks.indices {
            let drawn = index.nodesOfTask[task].filter { !aggregated || critical.contains($0) }
            guard drawn.contains(where: { !report.nodes[$0].spans.isEmpty }) else { continue }
            try out.raw(
                "<g class=\"t\(task)\" data-task=\"\(MarkupText.escaped(index.tasks[task].id, for: .html))\">\n")
            for nodeIndex in drawn {
                let node = report.nodes[nodeIndex]
                for span in node.spans {
                    let (x, y, barWidth) = place(node, span)
                    let retried = span.attempt < node.attempts
                    let marker = retried ? " class=\"retried\"" : critical.contains(nodeIndex) ? " class=\"crit\"" : ""
                    try out.raw(
                        "<rect\(marker) x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(barWidth))\" "
                            + "height=\"12\"><title>")
                    try out.text(
                        "\(node.id) attempt \(span.attempt)\(retried ? " (failed, retried)" : ""): "
                            + "\(Self.duration(span.end - span.start)) from \(Self.duration(span.start))")
                    try out.raw("</title></rect>\n")
                }
            }
            try out.raw("</g>\n")
        }
        try out.raw("</svg>\n")
        try writeLegend(into: out)
        try writeCriticalPath(into: out)
        try out.raw("</section>\n")
    }

    private func writeAxis(length: Double, scale: Double, height: Double, into out: HTMLStream)
        throws(HTMLStream.Failure)
    {
        let step = Self.tickStep(for: length)
        var tick = 0.0
        while tick <= length + step / 1000 {
            let x = TimelineMetrics.labelWidth + tick * scale
            try out.raw(
                "<line class=\"tick\" x1=\"\(Self.number(x))\" x2=\"\(Self.number(x))\" y1=\"16\" "
                    + "y2=\"\(Self.number(height))\"/><text class=\"sub\" x=\"\(Self.number(x + 2))\" y=\"12\">")
            try out.text(Self.duration(tick))
            try out.raw("</text>\n")
            tick += step
        }
    }

    /// Each lane's busy periods merged to the drawing's resolution (half a unit), for runs too big to draw bar by
    /// bar.
    private func writeBusyPeriods(
        laneOrder: [(String, Int)],
        place: (RunReport.Node, RunReport.Span) -> (x: Double, y: Double, width: Double),
        into out: HTMLStream
    ) throws(HTMLStream.Failure) {
        var periods: [String: [(start: Double, end: Double, y: Double)]] = [:]
        for node in report.nodes {
            for span in node.spans {
                let (x, y, width) = place(node, span)
                periods["\(node.queue)#\(span.lane)", default: []].append((x, x + width, y))
            }
        }
        for (queue, lane) in laneOrder {
            let sorted = (periods["\(queue)#\(lane)"] ?? []).sorted { $0.start < $1.start }
            var merged: [(start: Double, end: Double, y: Double)] = []
            for period in sorted {
                if let last = merged.last, period.start <= last.end + 0.5 {
                    merged[merged.count - 1].end = max(last.end, period.end)
                } else {
                    merged.append(period)
                }
            }
            for period in merged {
                try out.raw(
                    "<rect class=\"busy\" x=\"\(Self.number(period.start))\" y=\"\(Self.number(period.y))\" "
                        + "width=\"\(Self.number(period.end - period.start))\" height=\"12\"/>\n")
            }
        }
    }

    /// Which colour is which task.
    private func writeLegend(into out: HTMLStream) throws(HTMLStream.Failure) {
        try out.raw("<div class=\"chips\">")
        for (task, spec) in index.tasks.enumerated() {
            try out.raw(
                "<span class=\"chip\" data-task=\"\(MarkupText.escaped(spec.id, for: .html))\"><svg width=\"10\" height=\"10\">"
                    + "<rect class=\"t\(task)\" width=\"10\" height=\"10\" rx=\"2\"/></svg>")
            try out.text(spec.id)
            try out.raw("</span>")
        }
        try out.raw("</div>\n")
    }

    private func writeCriticalPath(into out: HTMLStream) throws(HTMLStream.Failure) {
        let path = index.criticalPath
        guard let last = path.last.map({ report.nodes[$0] }), let first = path.first.map({ report.nodes[$0] }) else {
            return
        }
        let names =
            path.count <= 16
            ? path.map { report.nodes[$0].id }
            : path.prefix(8).map { report.nodes[$0].id } + ["…"] + path.suffix(7).map { report.nodes[$0].id }
        try out.raw("<p><b>Critical path</b> (\(path.count) node\(path.count == 1 ? "" : "s"), ")
        try out.raw("\(Self.duration((last.end ?? 0) - (first.start ?? 0))) of \(Self.duration(report.duration))): ")
        try out.text(names.joined(separator: " → "))
        try out.raw("</p>\n")
    }

    /// A tick interval of 1, 2 or 5 × 10ⁿ seconds giving about ten ticks.
    static func tickStep(for length: Double) -> Double {
        let rough = length / 10
        let magnitude = pow(10, floor(log10(rough)))
        let step = [1.0, 2, 5, 10].first { $0 * magnitude >= rough } ?? 10
        return step * magnitude
    }
}
