import ArgumentParser
import FlowKit
import Foundation

/// GitHub Actions' workflow commands for what went wrong (`::error file=…,line=…,col=…::message`): the runner
/// turns each into an annotation on the line of the workflow file, in the job's summary and the pull request.
enum GitHubAnnotations {
    /// The annotations a diagnostic and its severity give: one line, the suggestion and the hint in the message.
    static func line(for diagnostic: Diagnostic) -> String {
        var message = diagnostic.message
        if let suggestion = diagnostic.suggestion { message += " (did you mean '\(suggestion)'?)" }
        if let hint = diagnostic.hint { message += "\nhint: \(hint)" }
        for note in diagnostic.notes {
            message += "\nnote: " + (note.location.map { "\($0): " } ?? "") + note.message
        }
        let command =
            switch diagnostic.severity {
            case .error: "error"
            case .warning: "warning"
            case .note: "notice"
            }
        return Self.command(command, at: diagnostic.location, message)
    }

    /// The annotation of a node that failed by itself: at its task in the workflow, with its cause and how many
    /// dependents its failure skipped.
    static func line(for failure: RunReport.RootFailure) -> String {
        let node = failure.node
        var message = "\(node.id) failed: \(node.cause ?? "no cause given")"
        let skipped = failure.skippedDependents
        if skipped > 0 { message += " — \(skipped) dependent\(skipped == 1 ? "" : "s") skipped" }
        return Self.command(
            node.continueOnError ? "warning" : "error", at: node.location.flatMap(SourceLocation.init(parsing:)),
            message)
    }

    /// `::error file=path,line=3,col=5::message`, the properties and the message escaped as the runner reads
    /// them (`%`, CR and LF everywhere, `:` and `,` in properties too).
    static func command(_ name: String, at location: SourceLocation?, _ message: String) -> String {
        var properties = ""
        if let location {
            properties =
                " file=\(escape(location.path, property: true)),line=\(location.line),col=\(location.column)"
        }
        return "::\(name)\(properties)::\(escape(message, property: false))"
    }

    private static func escape(_ text: String, property: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            case ":" where property: out += "%3A"
            case "," where property: out += "%2C"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// `--annotations`: what a CI reads workflow errors and failed nodes from, besides the terminal's text.
enum AnnotationFormat: String, ExpressibleByArgument, CaseIterable {
    /// GitHub Actions' workflow commands (automatic when `GITHUB_ACTIONS=true`).
    case github
    /// None, even on GitHub Actions.
    case none

    /// The format asked for, or GitHub's when the process runs in GitHub Actions.
    static func resolved(_ asked: AnnotationFormat?, environment: [String: String]) -> AnnotationFormat {
        asked ?? (environment["GITHUB_ACTIONS"] == "true" ? .github : .none)
    }
}

extension SourceLocation {
    /// A location from its `path:line:col` form (a report node's ``RunReport/Node/location``).
    init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1])
        else { return nil }
        self.init(path: parts.dropLast(2).joined(separator: ":"), line: line, column: column)
    }
}
