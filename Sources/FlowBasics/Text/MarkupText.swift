/// Text escaped for markup: flowrun's one escaper for the `--html` page and the `--junit` report.
///
/// `&`, `<`, `>`, `"` and `'` become entities, so the text is safe in element content and in quoted attribute
/// values. The dialects differ where their readers do: HTML writes the apostrophe as `&#39;` (HTML 4 has no
/// `&apos;`) and passes every other character through; XML 1.0 writes it as `&apos;`, a carriage return as
/// `&#13;` (a parser would turn a raw one into a line feed), and the characters XML cannot hold at all (C0
/// controls but tab, line feed and carriage return; U+FFFE, U+FFFF) as `\u{…}`.
package enum MarkupText {
    /// Which reader the text is for.
    package enum Dialect: Sendable {
        /// An HTML page.
        case html
        /// An XML 1.0 document.
        case xml
    }

    /// `text` with what `dialect` cannot hold as it is replaced; `text` itself when nothing needs replacing.
    package static func escaped(_ text: String, for dialect: Dialect) -> String {
        guard text.utf8.contains(where: { mayNeedEscaping($0, dialect) }) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += dialect == .html ? "&#39;" : "&apos;"
            case _ where dialect == .html: escaped.unicodeScalars.append(scalar)
            case "\t", "\n": escaped.unicodeScalars.append(scalar)
            case "\r": escaped += "&#13;"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Whether `byte` is replaced, or (for XML) may start a character that is: U+FFFE and U+FFFF are EF BF BE
    /// and EF BF BF in UTF-8.
    private static func mayNeedEscaping(_ byte: UInt8, _ dialect: Dialect) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"): true
        case 0..<0x20, 0xEF: dialect == .xml
        default: false
        }
    }
}
