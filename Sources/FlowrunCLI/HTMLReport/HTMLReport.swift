import FlowKit
import Foundation

/// A run report as one self-contained HTML page (`--html run.html`, `flowrun report run.json --html run.html`):
/// a header with totals and queue use, the failures first, the task graph (click a task to filter the page), a
/// contact sheet of the images written, a status grid of every node and a timeline of the queue slots with the
/// critical path.
///
/// Nothing is fetched when the page opens: style, script, graph and thumbnails are inline. It is streamed to
/// a temporary file beside `path` and renamed into place, so it appears complete or not at all.
struct HTMLReport {
    let index: ReportIndex
    /// The folder the page is written to: links to written files are relative to it.
    let pageDirectory: String

    init(report: RunReport, pageDirectory: String) {
        index = ReportIndex(report)
        self.pageDirectory = pageDirectory
    }

    var report: RunReport { index.report }

    /// Writes the page to `path` atomically.
    /// - Throws: ``HTMLStream/Failure`` with the OS's words when the file cannot be written.
    static func write(_ report: RunReport, to path: String) throws(HTMLStream.Failure) {
        let directory = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
        let page = HTMLReport(report: report, pageDirectory: directory)
        let stream = try HTMLStream(path: path)
        try page.render(into: stream)
        try stream.commit()
    }

    /// The whole page, section by section.
    func render(into out: HTMLStream) throws(HTMLStream.Failure) {
        try out.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        try out.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
        try out.text("flowrun: \(report.workflow)")
        try out.raw("</title>\n<style>\n")
        try out.raw(StatusPalette.css)
        try out.raw(Self.taskColours(count: index.tasks.count))
        try out.raw(Self.styleSheet)
        try out.raw("\n</style>\n</head>\n<body>\n")
        try out.raw(
            "<div id=\"filter\">Showing task <b id=\"filter-task\"></b>"
                + "<button type=\"button\" id=\"filter-clear\">show all</button></div>\n<main>\n")
        try writeHeader(into: out)
        try writeFailures(into: out)
        try writeGraph(into: out)
        try writeContactSheet(into: out)
        try writeGrid(into: out)
        try writeTimeline(into: out)
        try out.raw("</main>\n<script>\n")
        try out.raw(Self.script)
        try out.raw("\n</script>\n</body>\n</html>\n")
    }

    /// A colour per task (`.t0`, `.t1`, …) for the timeline, spread around the hue circle.
    static func taskColours(count: Int) -> String {
        (0..<count).map { task in
            let hue = (task * 137 + 200) % 360  // the golden angle keeps neighbours apart
            return ".t\(task){fill:hsl(\(hue) 55% 55%)}"
        }.joined(separator: "") + "\n"
    }

    /// Seconds as the page shows them: `850 ms`, `4.2 s`, `3 min 12 s`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds < 60 { return String(format: "%.2f s", seconds) }
        let whole = Int(seconds.rounded())
        return "\(whole / 60) min \(whole % 60) s"
    }

    /// A node's line for tooltips: `decode[3] failed: cause` or `decode[3] succeeded in 12 ms`.
    func summary(of node: RunReport.Node) -> String {
        var text = "\(node.id) \(node.status.rawValue)"
        if let cause = node.cause {
            text += ": \(cause)"
        } else if let duration = node.duration {
            text += " in \(Self.duration(duration))"
        }
        if node.attempts > 1 { text += " (\(node.attempts) attempts)" }
        return text
    }
}
