import FlowKit
import Foundation

extension HTMLReport {
    /// The workflow, when, how long, the exit status, totals by status and each queue's utilisation.
    func writeHeader(into out: HTMLStream) throws(HTMLStream.Failure) {
        try out.raw("<header>\n<h1>")
        try out.text(report.workflow)
        try out.raw("</h1>\n<p class=\"meta\"><code>")
        try out.text(report.path)
        try out.raw("</code> · started ")
        try out.text(ISO8601DateFormatter().string(from: report.startedAt))
        try out.raw(" · took \(Self.duration(report.duration)) · \(report.nodes.count) nodes · ")
        let exit = report.exitCode
        let (label, status): (String, String) =
            switch exit {
            case 0: ("exit 0: all succeeded", "succeeded")
            case 130: ("exit 130: interrupted", "cancelled")
            default: ("exit \(exit): some nodes failed", "failed")
            }
        try out.raw("<span class=\"exit \(StatusPalette.cssClass(NodeStatus(rawValue: status) ?? .failed))\">")
        try out.text(label)
        try out.raw("</span></p>\n<div class=\"chips\">")
        let totals = report.totals
        for status in StatusPalette.ordered {
            guard let count = totals[status], count > 0 else { continue }
            try out.raw(
                "<span class=\"chip\"><span class=\"dot \(StatusPalette.cssClass(status))\"></span>"
                    + "\(count) \(status.rawValue)</span>")
        }
        try out.raw("</div>\n")
        try writeUtilisation(into: out)
        try out.raw("</header>\n")
    }

    /// Busy time of each queue's slots over the run's length times its limit.
    private func writeUtilisation(into out: HTMLStream) throws(HTMLStream.Failure) {
        var busy: [String: Double] = [:]
        for node in report.nodes {
            for span in node.spans { busy[node.queue, default: 0] += span.end - span.start }
        }
        let queues = Set(report.nodes.map(\.queue)).sorted()
        guard !queues.isEmpty, report.duration > 0 else { return }
        try out.raw("<div class=\"util\" title=\"time the queue's slots were busy, over the run's length\">")
        for queue in queues {
            let limit = max(report.queueLimits[queue] ?? 1, 1)
            let share = min(1, (busy[queue] ?? 0) / (report.duration * Double(limit)))
            try out.raw("<span>queue <b>")
            try out.text(queue)
            try out.raw(
                "</b> (\(limit) slot\(limit == 1 ? "" : "s"))</span><span class=\"bar\">"
                    + "<span style=\"width:\(Int((share * 100).rounded()))%\"></span></span>"
                    + "<span>\(Int((share * 100).rounded()))% busy</span>")
        }
        try out.raw("</div>\n")
    }
}
