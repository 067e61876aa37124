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

    /// Writes `text` to stdout with its control characters made visible (see ``visible(_:)``).
    func print(_ text: String) {
        FileHandle.standardOutput.write(Data(Self.visible(text).utf8))
    }

    /// Writes text to stdout as it is: for a renderer that has passed every piece of user text through
    /// ``visible(_:)`` and added no escape sequence but ``paint(_:_:)``'s.
    func printPainted(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `text` to stderr with its control characters made visible, then the severities painted.
    func error(_ text: String, styled: Bool = false) {
        let visible = Self.visible(text)
        FileHandle.standardError.write(Data((styled ? Self.highlight(visible) : visible).utf8))
    }

    /// `text` with every control character but newline and tab written as an escape (`\r`, `\u{1b}`): item
    /// names, file names and error messages come from users and servers, and raw, an escape sequence in them
    /// would drive the user's terminal (move the cursor, rewrite lines, set the title). Idempotent unless
    /// `oneLine`, which also escapes newlines, tabs and backslashes so that a node id is one line that reads back
    /// unambiguously.
    static func visible(_ text: String, oneLine: Bool = false) -> String {
        func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
            isControl(scalar) || (oneLine && (scalar == "\n" || scalar == "\t" || scalar == "\\"))
        }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case _ where !needsEscape(scalar): out.append(scalar)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            default: out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            }
        }
        return String(out)
    }

    /// C0 controls but newline and tab, DEL, and the C1 controls (U+0080–U+009F, which some terminals obey).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
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
        case .cached, .restored: code = "36"
        default: code = "0"
        }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}
