import FlowBasics
import Foundation
import OrderedCollections

/// Writes a run as a JUnit XML report (`--junit`), the file GitLab, Jenkins and GitHub's test reporters read:
/// a `testsuite` per task, a `testcase` per node — a failed node with its `failure` (cause, and where its task
/// is written), a skipped or cancelled one `skipped` with its cause.
///
/// The shape is that of the Jenkins/Surefire schema (`junit-10.xsd`) the others accept.
package enum JUnitReport {
    /// Writes the report of a run to `path`, streamed, replacing the file atomically.
    package static func write(_ report: RunReport, toPath path: String) throws {
        var stream = try JSONWriter(path: path)
        do {
            try write(report, to: &stream)
        } catch {
            stream.abandon()
            throw error
        }
        try stream.commit()
    }

    /// Per task, the nodes' positions in the report, and how many failed and were skipped.
    private struct Suite {
        var nodes: [Int] = []
        var failures = 0
        var skipped = 0
        var time = 0.0
    }

    private static func write(_ report: RunReport, to stream: inout JSONWriter) throws {
        var suites = OrderedDictionary<String, Suite>()
        for (position, node) in report.nodes.enumerated() {
            var suite = suites[node.task] ?? Suite()
            suite.nodes.append(position)
            switch node.status {
            case .failed: suite.failures += 1
            case .skipped, .cancelled: suite.skipped += 1
            default: break
            }
            suite.time += node.duration ?? 0
            suites[node.task] = suite
        }
        let failures = suites.values.reduce(0) { $0 + $1.failures }
        let skipped = suites.values.reduce(0) { $0 + $1.skipped }
        try stream.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        try stream.raw(
            "<testsuites name=\(attribute(report.workflow)) tests=\"\(report.nodes.count)\" failures=\"\(failures)\" "
                + "errors=\"0\" skipped=\"\(skipped)\" time=\"\(seconds(report.duration))\">\n")
        for (task, suite) in suites {
            try stream.raw(
                "  <testsuite name=\(attribute(task)) tests=\"\(suite.nodes.count)\" failures=\"\(suite.failures)\" "
                    + "errors=\"0\" skipped=\"\(suite.skipped)\" time=\"\(seconds(suite.time))\">\n")
            for position in suite.nodes {
                try stream.raw(testCase(report.nodes[position], workflow: report.workflow))
            }
            try stream.raw("  </testsuite>\n")
        }
        try stream.raw("</testsuites>\n")
    }

    private static func testCase(_ node: RunReport.Node, workflow: String) -> String {
        let head =
            "    <testcase name=\(attribute(node.id)) classname=\(attribute("\(workflow).\(node.task)")) "
            + "time=\"\(seconds(node.duration ?? 0))\""
        let cause = node.cause ?? "no cause given"
        switch node.status {
        case .failed:
            let text = (node.location.map { "\($0): " } ?? "") + cause
            return head + ">\n      <failure message=\(attribute(cause)) type=\(attribute(node.code ?? "failed"))>"
                + escaped(text) + "</failure>\n    </testcase>\n"
        case .skipped, .cancelled:
            return head
                + ">\n      <skipped message=\(attribute("\(node.status.rawValue): \(cause)"))/>\n    </testcase>\n"
        default:
            return head + "/>\n"
        }
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    /// A quoted attribute value; its line breaks and tabs as references, which a parser would turn into spaces.
    private static func attribute(_ text: String) -> String {
        "\"" + escaped(text).replacingOccurrences(of: "\n", with: "&#10;").replacingOccurrences(of: "\t", with: "&#9;")
            + "\""
    }

    /// Text as XML 1.0 holds it (``MarkupText``): the markup characters as entities, and the characters it cannot
    /// hold at all written as `\u{…}`.
    private static func escaped(_ text: String) -> String {
        MarkupText.escaped(text, for: .xml)
    }
}
