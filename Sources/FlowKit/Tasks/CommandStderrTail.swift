import Foundation

/// Formats what a failed program wrote to standard error for a failure message.
enum CommandStderrTail {
    /// How many trailing lines to show.
    static let maxLines = 20
    /// How many trailing bytes to show at most.
    static let maxBytes = 2 * 1024

    /// `": <last lines>"`, or `" (nothing on standard error)"` when it was empty.
    static func render(_ bytes: Data) -> String {
        var tail = bytes.suffix(maxBytes)
        // Do not start inside a multi-byte character.
        while let first = tail.first, first & 0xC0 == 0x80 { tail = tail.dropFirst() }
        let text = String(decoding: tail, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return " (nothing on standard error)" }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let shown = lines.suffix(maxLines).joined(separator: "\n")
        let cut = bytes.count > tail.count || lines.count > maxLines
        return ": " + (cut ? "…" : "") + shown
    }

    /// The conventional name of a signal number.
    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case 1: "SIGHUP"
        case 2: "SIGINT"
        case 3: "SIGQUIT"
        case 4: "SIGILL"
        case 6: "SIGABRT"
        case 7: "SIGBUS"
        case 8: "SIGFPE"
        case 9: "SIGKILL"
        case 11: "SIGSEGV"
        case 13: "SIGPIPE"
        case 14: "SIGALRM"
        case 15: "SIGTERM"
        default: "signal \(signal)"
        }
    }
}
