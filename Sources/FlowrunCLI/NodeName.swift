/// Node ids as a terminal shows them: `decode[photos/a b.jpg]` — an item's key may hold anything a file name
/// or list line holds, so control characters are escaped and, in tables, a long key is shortened in the
/// middle. Reports (`--report`, `--html`) keep ids whole.
enum NodeName {
    /// The widest an id is shown in a table column.
    static let tableWidth = 60

    /// `id` as one line (``Terminal/visible(_:oneLine:)``), shortened to `width` characters with `…` in the middle
    /// when given.
    static func forTerminal(_ id: String, shortenedTo width: Int? = nil) -> String {
        let escaped = Terminal.visible(id, oneLine: true)
        guard let width, escaped.count > width, width > 1 else { return escaped }
        let head = (width - 1) / 2
        let tail = width - 1 - head
        return String(escaped.prefix(head)) + "…" + String(escaped.suffix(tail))
    }
}
