import FlowBasics
import FlowKit
import Foundation

extension HTMLReport {
    /// Gaps (items not written) drawn at most; the failures section and the grid show them all.
    static let maxSheetGaps = 300

    /// A thumbnail of every image the run wrote or found up to date, linked to the file, in item order; items
    /// whose file was not written (failed, skipped, cancelled) are labelled gaps. Shown for tasks that write files
    /// (`write`) or recorded any artifact; it says so when the run recorded no previews. A run keeps at most
    /// ``Artifact/maxPreviewsPerRun`` previews, so a huge run's sheet shows its first images and says so.
    func writeContactSheet(into out: HTMLStream) throws(HTMLStream.Failure) {
        let writers = index.tasks.indices.filter { task in
            index.tasks[task].type == "write" || index.nodesOfTask[task].contains { report.nodes[$0].artifact != nil }
        }
        guard !writers.isEmpty else { return }
        let shots = writers.flatMap { index.nodesOfTask[$0] }
        try out.raw("<section class=\"card\" id=\"sheet\">\n<h2>Contact sheet</h2>\n")
        let written = shots.filter { report.nodes[$0].artifact != nil }.count
        guard written > 0 else {
            return try out.raw(
                "<p class=\"hint\">No previews were recorded: run with <code>--html</code>, or with "
                    + "<code>--previews</code> next to <code>--report</code>.</p>\n</section>\n")
        }
        let previews = shots.filter { report.nodes[$0].artifact?.preview != nil }.count
        // An up-to-date node's file was written by an earlier run: shown with the preview the store kept.
        let gaps = shots.filter { ![.succeeded, .cached, .restored].contains(report.nodes[$0].status) }
        var note = "\(previews) of \(shots.count) images shown; click one to open the file."
        if previews < written {
            note += " Previews are kept for the first \(Artifact.maxPreviewsPerRun) images of a run."
            let unpreviewedCached = shots.contains { node in
                [.cached, .restored].contains(report.nodes[node].status) && report.nodes[node].artifact?.preview == nil
            }
            if unpreviewedCached { note += " A file found up to date has one only if it was written with previews." }
        }
        if gaps.count > Self.maxSheetGaps {
            note += " The first \(Self.maxSheetGaps) of the \(gaps.count) items not written are shown as gaps."
        }
        try out.raw("<p class=\"hint\">\(note)</p>\n<div class=\"sheet\">\n")
        let shownGaps = Set(gaps.prefix(Self.maxSheetGaps))
        for node in shots where report.nodes[node].artifact?.preview != nil || shownGaps.contains(node) {
            try writeShot(node, into: out)
        }
        try out.raw("</div>\n</section>\n")
    }

    private func writeShot(_ nodeIndex: Int, into out: HTMLStream) throws(HTMLStream.Failure) {
        let node = report.nodes[nodeIndex]
        try out.raw("<figure class=\"shot\" data-task=\"\(MarkupText.escaped(node.task, for: .html))\">")
        if let artifact = node.artifact, let preview = artifact.preview {
            let name = FilePaths.name(of: artifact.path)
            try out.raw("<a href=\"\(MarkupText.escaped(link(to: artifact.path), for: .html))\">")
            try out.raw("<img alt=\"\(MarkupText.escaped(name, for: .html))\" src=\"data:image/jpeg;base64,")
            try out.raw(preview.base64EncodedString())
            try out.raw("\"></a><figcaption title=\"\(MarkupText.escaped(artifact.path, for: .html))\">")
            try out.text(name)
        } else {
            // The gap says why: the node's own failure, or the one upstream it was skipped for.
            try out.raw(
                "<div class=\"gap\"><b><span class=\"dot \(StatusPalette.cssClass(node.status))\"></span> "
                    + "\(node.status.rawValue)</b>")
            if let root = index.rootFailure(of: nodeIndex).map({ report.nodes[$0] }) {
                try out.raw("<span>")
                try out.text(
                    Self.clipped(root.id == node.id ? root.cause ?? "" : "\(root.id): \(root.cause ?? "")", to: 56))
                try out.raw("</span>")
            }
            try out.raw("</div>")
            try out.raw("<figcaption title=\"")
            try out.text(summary(of: node))
            try out.raw("\">")
            try out.text(node.id)
        }
        try out.raw("</figcaption></figure>\n")
    }

    /// A link to a written file, relative to the page's folder (`../out/a.jpg`), so the page and the files can
    /// move together; every unsafe character percent-encoded.
    func link(to path: String) -> String {
        let file = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let page = URL(fileURLWithPath: pageDirectory).standardizedFileURL.pathComponents
        let common = zip(file, page).prefix { $0 == $1 }.count
        let relative = Array(repeating: "..", count: page.count - common) + file.dropFirst(common)
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: ":"))
        return relative.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: "/")
    }
}
