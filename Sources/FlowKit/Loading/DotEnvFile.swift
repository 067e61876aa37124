import FlowBasics
import Foundation

/// Reads a dotenv file (`--env-file`) for `${env.NAME}`: `NAME=value` lines, `export NAME=value`, `#`
/// comments, and values in double quotes (escapes `\n`, `\t`, `\"`, `\\`; may span lines) or single quotes
/// (taken literally). Values are not expanded: `$HOME` stays as written. Every malformed line is reported.
///
/// ```
/// # credentials for the photo API
/// export API_TOKEN=abc123
/// GREETING="hello\nworld"
/// PATTERN='${not.interpolated}'
/// ```
package enum DotEnvFile {
    /// Reads a file; a file that cannot be read is one error.
    /// - Returns: The variables, later lines overriding earlier ones, and the text for source snippets.
    package static func load(path: String, diagnostics: inout Diagnostics) -> (values: [String: String], text: String) {
        let bytes: [UInt8]
        switch DefinitionFile.read(path) {
        case .success(let read): bytes = read
        case .failure(let failure):
            diagnostics.error("cannot read env file '\(path)': \(failure.reason)", at: nil)
            return ([:], "")
        }
        var lines: [String] = []
        do throws(TextLines.Fault) {
            try TextLines.forEach(in: bytes) { _, line in
                lines.append(line)
                return true
            }
        } catch {
            // Nothing of the file is used: a value cut at a NUL, or with its bytes replaced, would be wrong.
            diagnostics.error(
                "cannot read env file '\(path)': \(error.message)",
                at: SourceLocation(path: path, line: error.line, column: 1),
                hint: "an env file is UTF-8 text without NUL bytes")
            return ([:], lines.joined(separator: "\n"))
        }
        return (parse(lines: lines, path: path, diagnostics: &diagnostics), lines.joined(separator: "\n"))
    }

    /// Parses the lines of a dotenv file, split on bytes with any `\r` before a `\n` removed (``TextLines``).
    private static func parse(lines: [String], path: String, diagnostics: inout Diagnostics) -> [String: String] {
        var values: [String: String] = [:]
        var number = 0
        while number < lines.count {
            let start = number
            number += 1
            var line = Substring(lines[start])
            let indent = line.prefix { $0 == " " || $0 == "\t" }.count
            line = line.dropFirst(indent)
            if line.isEmpty || line.hasPrefix("#") { continue }
            var column = indent + 1
            if line.hasPrefix("export ") {
                line = line.dropFirst("export ".count).drop { $0 == " " }
                column = lines[start].count - line.count + 1
            }
            let at = { (column: Int) in SourceLocation(path: path, line: start + 1, column: column) }
            guard let equals = line.firstIndex(of: "=") else {
                diagnostics.error(
                    "expected NAME=value", at: at(column),
                    hint: "each line of an env file sets one variable, as in API_TOKEN=abc123; comments start with #")
                continue
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard isName(name) else {
                diagnostics.error(
                    "invalid variable name '\(name)'", at: at(column),
                    hint: "a name is letters, digits and underscores, not starting with a digit")
                continue
            }
            var rest = line[line.index(after: equals)...]
            rest = rest.drop { $0 == " " || $0 == "\t" }
            let valueColumn = lines[start].count - rest.count + 1
            if let quote = rest.first, quote == "\"" || quote == "'" {
                var body = String(rest.dropFirst())
                var closing = closingQuote(in: body, quote: quote)
                // A double-quoted value may continue on the following lines.
                while closing == nil, quote == "\"", number < lines.count {
                    body += "\n" + lines[number]
                    number += 1
                    closing = closingQuote(in: body, quote: quote)
                }
                guard let closing else {
                    diagnostics.error(
                        "unterminated \(quote == "\"" ? "double" : "single")-quoted value of '\(name)'",
                        at: at(valueColumn), hint: "end the value with \(quote)")
                    continue
                }
                let raw = String(body[..<closing])
                let after = body[body.index(after: closing)...].trimmingCharacters(in: .whitespaces)
                if !after.isEmpty, !after.hasPrefix("#") {
                    diagnostics.error(
                        "unexpected text after the quoted value of '\(name)'", at: at(valueColumn),
                        hint: "put the whole value inside the quotes, or start a comment with #")
                    continue
                }
                values[name] = quote == "\"" ? unescaped(raw) : raw
            } else {
                var value = Substring(rest)
                if let comment = value.range(of: " #") ?? value.range(of: "\t#") {
                    value = value[..<comment.lowerBound]
                }
                values[name] = value.trimmingCharacters(in: .whitespaces)
            }
        }
        return values
    }

    private static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        }
    }

    /// The index of the quote that ends a value, skipping `\"` inside double quotes.
    private static func closingQuote(in body: String, quote: Character) -> String.Index? {
        var index = body.startIndex
        while index < body.endIndex {
            let character = body[index]
            if character == "\\", quote == "\"" {
                index = body.index(after: index)
                if index < body.endIndex { index = body.index(after: index) }
                continue
            }
            if character == quote { return index }
            index = body.index(after: index)
        }
        return nil
    }

    private static func unescaped(_ raw: String) -> String {
        var result = ""
        var escaping = false
        for character in raw {
            if escaping {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                default: result.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
