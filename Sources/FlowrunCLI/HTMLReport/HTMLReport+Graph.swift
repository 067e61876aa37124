import FlowBasics
import FlowKit
import Foundation

extension HTMLReport {
    /// Box size and spacing of the task graph, in SVG units (pixels at 100%).
    private enum GraphMetrics {
        static let boxWidth = 176.0
        static let boxHeight = 58.0
        static let columnGap = 64.0
        static let rowGap = 18.0
        static let margin = 8.0
        static var column: Double { boxWidth + columnGap }
        static var row: Double { boxHeight + rowGap }
    }

    /// The task graph as inline SVG, laid out left to right by ``TaskGraphLayout``: one `g.task` per task with
    /// its id, type, node count and a bar of its nodes' statuses. Clicking a task filters the page to it.
    func writeGraph(into out: HTMLStream) throws(HTMLStream.Failure) {
        let layout = TaskGraphLayout(dependencies: index.taskDependencies)
        let width =
            Double(max(layout.layerCount, 1)) * GraphMetrics.column - GraphMetrics.columnGap + 2 * GraphMetrics.margin
        let height = Double(max(layout.slotCount, 1)) * GraphMetrics.row - GraphMetrics.rowGap + 2 * GraphMetrics.margin
        try out.raw("<section class=\"card\" id=\"graph\">\n<h2>Task graph</h2>\n")
        try out.raw("<p class=\"hint\">Click a task to show only its nodes below; click it again to show all.</p>\n")
        try out.raw(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"task graph\" width=\"\(Int(width))\" "
                + "height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">\n")
        try out.raw(
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
                + "markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0L10 5L0 10z\"/></marker></defs>\n")
        for edge in layout.edges {
            try out.raw("<path class=\"edge\" marker-end=\"url(#arrow)\" d=\"\(Self.edgePath(edge, layout))\"/>\n")
        }
        for (task, position) in layout.positions.enumerated() {
            try writeTask(task, at: Self.corner(position.layer, position.slot), into: out)
        }
        try out.raw("</svg>\n</section>\n")
    }

    private func writeTask(_ task: Int, at corner: (x: Double, y: Double), into out: HTMLStream)
        throws(HTMLStream.Failure)
    {
        let spec = index.tasks[task]
        let totals = index.totals(ofTask: task)
        let count = index.nodesOfTask[task].count
        try out.raw("<g class=\"task\" data-task=\"\(MarkupText.escaped(spec.id, for: .html))\" ")
        try out.raw("transform=\"translate(\(Self.number(corner.x)) \(Self.number(corner.y)))\">\n<title>")
        let breakdown = StatusPalette.ordered.compactMap { status in
            totals[status].map { "\($0) \(status.rawValue)" }
        }
        try out.text(
            "\(spec.id) (\(spec.type)) on queue \(spec.queue)\n\(count) node\(count == 1 ? "" : "s"): "
                + breakdown.joined(separator: ", ") + (spec.location.isEmpty ? "" : "\n\(spec.location)"))
        try out.raw("</title>\n")
        try out.raw(
            "<rect class=\"box\" width=\"\(Int(GraphMetrics.boxWidth))\" height=\"\(Int(GraphMetrics.boxHeight))\" "
                + "rx=\"8\"/>\n<text x=\"10\" y=\"19\" font-weight=\"600\">")
        try out.text(Self.clipped(spec.id, to: 22))
        try out.raw("</text>\n<text class=\"sub\" x=\"10\" y=\"35\">")
        let failed = totals[.failed] ?? 0
        let counts = spec.forEach || count > 1 ? "×\(count)" + (failed > 0 ? ", \(failed) failed" : "") : ""
        try out.text(Self.clipped([spec.type, counts].filter { !$0.isEmpty }.joined(separator: " "), to: 28))
        try out.raw("</text>\n")
        // The status bar: one segment per status, as wide as its share of the task's nodes.
        var x = 10.0
        let barWidth = GraphMetrics.boxWidth - 20
        for status in StatusPalette.ordered.reversed() {
            guard let part = totals[status], part > 0, count > 0 else { continue }
            let width = barWidth * Double(part) / Double(count)
            try out.raw(
                "<rect class=\"\(StatusPalette.cssClass(status))\" x=\"\(Self.number(x))\" y=\"44\" "
                    + "width=\"\(Self.number(max(width, 1.5)))\" height=\"6\"/>\n")
            x += width
        }
        try out.raw("</g>\n")
    }

    /// The top-left corner of a layout slot.
    private static func corner(_ layer: Int, _ slot: Int) -> (x: Double, y: Double) {
        (
            GraphMetrics.margin + Double(layer) * GraphMetrics.column,
            GraphMetrics.margin + Double(slot) * GraphMetrics.row
        )
    }

    /// A smooth path from the right side of one box, through its waypoints, to the left side of the other.
    private static func edgePath(_ edge: TaskGraphLayout.Edge, _ layout: TaskGraphLayout) -> String {
        let from = layout.positions[edge.from]
        let to = layout.positions[edge.to]
        var points: [(x: Double, y: Double)] = []
        let start = corner(from.layer, from.slot)
        points.append((start.x + GraphMetrics.boxWidth, start.y + GraphMetrics.boxHeight / 2))
        for (offset, slot) in edge.waypoints.enumerated() {
            let waypoint = corner(from.layer + 1 + offset, slot)
            points.append((waypoint.x, waypoint.y + GraphMetrics.boxHeight / 2))
            points.append((waypoint.x + GraphMetrics.boxWidth, waypoint.y + GraphMetrics.boxHeight / 2))
        }
        let end = corner(to.layer, to.slot)
        points.append((end.x, end.y + GraphMetrics.boxHeight / 2))
        var path = "M\(number(points[0].x)) \(number(points[0].y))"
        for (a, b) in zip(points, points.dropFirst()) {
            let middle = (a.x + b.x) / 2
            path += "C\(number(middle)) \(number(a.y)) \(number(middle)) \(number(b.y)) \(number(b.x)) \(number(b.y))"
        }
        return path
    }

    /// A coordinate with at most one decimal.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// Text shortened with an ellipsis to fit a box.
    static func clipped(_ text: String, to length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }
}
