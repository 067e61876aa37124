/// Node ids as a terminal shows them: `decode[photos/a b.jpg]` — an item's key may hold anything a file name
/// or list line holds, so control characters are escaped and, in tables, a long key is shortened in the
/// middle. Reports (`--report`, `--html`) keep ids whole.
enum NodeName {
    /// The widest an id is shown in a table column.
    static let tableWidth = 60

    /// `id` with control characters escaped (`\n`, `\t`, `\u{1B}`) and a backslash doubled, so one id is one
    /// line and reads back unambiguously; shortened to `width` characters with `…` in the middle when given.
    static func forTerminal(_ id: String, shortenedTo width: Int? = nil) -> String {
        var escaped = ""
        for scalar in id.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        guard let width, escaped.count > width, width > 1 else { return escaped }
        let head = (width - 1) / 2
        let tail = width - 1 - head
        return String(escaped.prefix(head)) + "…" + String(escaped.suffix(tail))
    }
}
