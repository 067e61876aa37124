import FlowBasics
import FlowKit

extension HTMLReport {
    /// Failures listed on the page at most; the status grid shows the rest.
    static let maxFailuresListed = 200
    /// Skipped nodes named under one failure at most.
    static let maxSkippedNamed = 12

    /// Each failed node with its cause, where its task is written, its attempts and what it caused to be
    /// skipped; then a line on cancelled nodes. Omitted when nothing failed or was cancelled.
    func writeFailures(into out: HTMLStream) throws(HTMLStream.Failure) {
        // Statuses alone first: a runner's report makes a whole node each time one is read.
        let failed = report.nodes.indices.filter { report.nodes.status(at: $0) == .failed }
        let cancelled = report.nodes.indices.filter { report.nodes.status(at: $0) == .cancelled }
        guard !failed.isEmpty || !cancelled.isEmpty else { return }
        try out.raw("<section class=\"card\" id=\"failures\">\n<h2>Failures (\(failed.count))</h2>\n")
        for failure in failed.prefix(Self.maxFailuresListed) {
            try writeFailure(node: failure, into: out)
        }
        if failed.count > Self.maxFailuresListed {
            try out.raw(
                "<p class=\"hint\">… and \(failed.count - Self.maxFailuresListed) more failures: "
                    + "see the status grid.</p>\n")
        }
        if let first = cancelled.first {
            let cause = report.nodes[first].cause ?? "cancelled"
            try out.raw("<p>\(cancelled.count) node\(cancelled.count == 1 ? "" : "s") cancelled: ")
            try out.text(cause)
            try out.raw("</p>\n")
        }
        try out.raw("</section>\n")
    }

    private func writeFailure(node nodeIndex: Int, into out: HTMLStream) throws(HTMLStream.Failure) {
        let node = report.nodes[nodeIndex]
        try out.raw("<article class=\"failure\" data-task=\"")
        try out.text(node.task)
        try out.raw("\">\n<h3>")
        try out.text(node.id)
        if let code = node.code { try out.raw(" <code>\(MarkupText.escaped(code, for: .html))</code>") }
        if node.continueOnError { try out.raw(" <span class=\"hint\">(continueOnError: tolerated)</span>") }
        try out.raw("</h3>\n<p class=\"cause\">")
        try out.text(node.cause ?? "failed without a cause")
        try out.raw("</p>\n<p class=\"hint\">")
        let location = node.location ?? index.tasks[index.taskOfNode[nodeIndex]].location
        if !location.isEmpty {
            try out.raw("task <b>")
            try out.text(node.task)
            try out.raw("</b> at <code>")
            try out.text(location)
            try out.raw("</code> · ")
        }
        try out.raw("\(node.attempts) attempt\(node.attempts == 1 ? "" : "s")")
        if let duration = node.duration { try out.raw(" · \(Self.duration(duration))") }
        try out.raw("</p>\n")
        let skipped = index.skipped(downstreamOf: nodeIndex)
        if !skipped.isEmpty {
            let names = skipped.prefix(Self.maxSkippedNamed).map { report.nodes[$0].id }.joined(separator: ", ")
            let more = skipped.count > Self.maxSkippedNamed ? " … and \(skipped.count - Self.maxSkippedNamed) more" : ""
            try out.raw("<p>Caused \(skipped.count) skipped: ")
            try out.text(names + more)
            try out.raw("</p>\n")
        }
        try out.raw("</article>\n")
    }
}
