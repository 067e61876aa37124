import FlowKit
import Foundation

/// Where output goes and how it looks: whether stdout/stderr are terminals, and whether colour is allowed
/// (`NO_COLOR` set, or not a terminal: no colour).
struct Terminal: Sendable {
    let stdoutIsTTY: Bool
    let stderrIsTTY: Bool
    let colors: Bool

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        stdoutIsTTY = isatty(STDOUT_FILENO) == 1
        stderrIsTTY = isatty(STDERR_FILENO) == 1
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        colors = !noColor && environment["TERM"] != "dumb" && stdoutIsTTY
    }

    var colorsDiagnostics: Bool { colors && stderrIsTTY }

    func print(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    func error(_ text: String, styled: Bool = false) {
        FileHandle.standardError.write(Data((styled ? Self.highlight(text) : text).utf8))
    }

    /// Paints the severities of rendered diagnostics.
    private static func highlight(_ text: String) -> String {
        text.replacingOccurrences(of: " error: ", with: " \u{1B}[1;31merror:\u{1B}[0m ")
            .replacingOccurrences(of: " warning: ", with: " \u{1B}[1;33mwarning:\u{1B}[0m ")
            .replacingOccurrences(of: " note: ", with: " \u{1B}[1;36mnote:\u{1B}[0m ")
    }

    func paint(_ text: String, _ status: NodeStatus) -> String {
        guard colors else { return text }
        let code: String
        switch status {
        case .succeeded: code = "32"
        case .failed: code = "1;31"
        case .skipped, .cancelled: code = "33"
        case .cached: code = "36"
        default: code = "0"
        }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}
