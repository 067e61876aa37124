/// Renders diagnostics the way a compiler does.
///
/// The first line of each diagnostic is stable — `path:line:col: error: message (did you mean 'x'?)` — because
/// tests and editors parse it. When the source text is known, the offending line follows with a `^` under
/// the column; then the hint, then the notes.
public struct DiagnosticRenderer: Sendable {
    /// The text of each file diagnostics may point into, by path as typed.
    public var sources: [String: String]
    /// Whether to print the source line and caret under the first line.
    public var showsSnippets: Bool

    /// Creates a renderer.
    /// - Parameters:
    ///   - sources: File texts by path, for snippets.
    ///   - showsSnippets: Whether to print the source line and caret.
    public init(sources: [String: String] = [:], showsSnippets: Bool = true) {
        self.sources = sources
        self.showsSnippets = showsSnippets
    }

    /// Renders every diagnostic, sorted by position, each followed by a newline.
    public func render(_ diagnostics: Diagnostics) -> String {
        // Each file is split into lines once, not once per diagnostic: thousands of diagnostics in a large
        // file were quadratic (a 60 KB fuzzed file took 44 s).
        var lines: [String: [Substring]] = [:]
        return diagnostics.sorted.map { render($0, lines: &lines) }.joined()
    }

    /// Renders one diagnostic with its snippet, hint and notes.
    public func render(_ diagnostic: Diagnostic) -> String {
        var lines: [String: [Substring]] = [:]
        return render(diagnostic, lines: &lines)
    }

    private func render(_ diagnostic: Diagnostic, lines: inout [String: [Substring]]) -> String {
        var out = headline(diagnostic) + "\n"
        if showsSnippets, let location = diagnostic.location, let snippet = snippet(at: location, lines: &lines) {
            out += snippet
        }
        if let hint = diagnostic.hint {
            out += "    hint: \(hint)\n"
        }
        for note in diagnostic.notes {
            out += headline(note) + "\n"
        }
        return out
    }

    /// The stable first line: `path:line:col: severity: message (did you mean 'x'?)`.
    public func headline(_ diagnostic: Diagnostic) -> String {
        var line = ""
        if let location = diagnostic.location { line += "\(location): " }
        line += "\(diagnostic.severity.rawValue): \(diagnostic.message)"
        if let suggestion = diagnostic.suggestion { line += " (did you mean '\(suggestion)'?)" }
        return line
    }

    private func snippet(at location: SourceLocation, lines: inout [String: [Substring]]) -> String? {
        guard let text = sources[location.path] else { return nil }
        if lines[location.path] == nil {
            lines[location.path] = text.split(separator: "\n", omittingEmptySubsequences: false)
        }
        guard let fileLines = lines[location.path], location.line >= 1, location.line <= fileLines.count else {
            return nil
        }
        var sourceLine = fileLines[location.line - 1]
        if sourceLine.hasSuffix("\r") { sourceLine = sourceLine.dropLast() }
        let gutter = String(location.line)
        let pad = String(repeating: " ", count: gutter.count)
        // A very long line (minified or hostile: 100,000 brackets on one line) is shown as a window around
        // the column, with `…` where it is cut, so one diagnostic stays a few lines.
        let scalars = Array(sourceLine.unicodeScalars)
        let caret = min(max(location.column - 1, 0), scalars.count)
        var start = 0
        var end = scalars.count
        if scalars.count > Self.maxSnippetWidth {
            start = max(0, min(caret - Self.maxSnippetWidth / 2, scalars.count - Self.maxSnippetWidth))
            end = start + Self.maxSnippetWidth
        }
        var shown = String(String.UnicodeScalarView(scalars[start..<end]))
        // Tabs stay tabs under the caret so it lines up whatever the terminal's tab width.
        var lead = scalars[start..<caret].map { $0 == "\t" ? "\t" : " " }.joined()
        if start > 0 {
            shown = "…" + shown
            lead = " " + lead
        }
        if end < scalars.count { shown += "…" }
        return " \(gutter) | \(shown)\n \(pad) | \(lead)^\n"
    }

    /// The longest source line shown whole in a snippet, in Unicode scalars.
    static let maxSnippetWidth = 160
}
