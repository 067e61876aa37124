import Foundation

/// A document made of maps, lists and scalars, written as YAML or JSON: the shape of a Kubernetes manifest.
/// Map keys keep the order they are given in, so output is stable (golden files compare it byte for byte).
indirect enum Manifest: Equatable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case list([Manifest])
    case map([(String, Manifest)])

    static func == (lhs: Manifest, rhs: Manifest) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        case (.map(let a), .map(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    /// The value under `key` of a map.
    subscript(key: String) -> Manifest? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.0 == key }?.1
    }

    /// Block-style YAML. Every string is double-quoted with JSON's escapes (a subset of YAML's), so no value
    /// can turn into a number, a boolean or a null.
    func yaml() -> String {
        var out = ""
        writeYAML(into: &out, indent: 0)
        return out
    }

    /// Pretty-printed JSON with keys in the given order.
    func json() -> String {
        var out = ""
        writeJSON(into: &out, indent: 0)
        return out + "\n"
    }

    private var isEmptyCollection: Bool {
        switch self {
        case .list(let items): items.isEmpty
        case .map(let entries): entries.isEmpty
        default: false
        }
    }

    private var scalarText: String? {
        switch self {
        case .string(let text): Self.quoted(text)
        case .integer(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .list(let items): items.isEmpty ? "[]" : nil
        case .map(let entries): entries.isEmpty ? "{}" : nil
        }
    }

    private func writeYAML(into out: inout String, indent: Int) {
        let pad = String(repeating: " ", count: indent)
        switch self {
        case .map(let entries) where !entries.isEmpty:
            for (key, value) in entries {
                out += pad + Self.quotedKey(key) + ":"
                if let text = value.scalarText {
                    out += " " + text + "\n"
                } else {
                    out += "\n"
                    value.writeYAML(into: &out, indent: indent + 2)
                }
            }
        case .list(let items) where !items.isEmpty:
            for item in items {
                if let text = item.scalarText {
                    out += pad + "- " + text + "\n"
                } else {
                    // The item's first line goes after the dash; the rest is indented past it.
                    var nested = ""
                    item.writeYAML(into: &nested, indent: indent + 2)
                    out += pad + "- " + nested.dropFirst(indent + 2)
                }
            }
        default:
            out += pad + (scalarText ?? "") + "\n"
        }
    }

    private func writeJSON(into out: inout String, indent: Int) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closing = String(repeating: "  ", count: indent)
        switch self {
        case .map(let entries) where !entries.isEmpty:
            out += "{\n"
            for (position, (key, value)) in entries.enumerated() {
                out += pad + Self.quoted(key) + ": "
                value.writeJSON(into: &out, indent: indent + 1)
                out += position == entries.count - 1 ? "\n" : ",\n"
            }
            out += closing + "}"
        case .list(let items) where !items.isEmpty:
            out += "[\n"
            for (position, item) in items.enumerated() {
                out += pad
                item.writeJSON(into: &out, indent: indent + 1)
                out += position == items.count - 1 ? "\n" : ",\n"
            }
            out += closing + "]"
        default:
            out += scalarText ?? ""
        }
    }

    /// Keys are plain when they are simple names, as Kubernetes' are.
    private static func quotedKey(_ key: String) -> String {
        let plain =
            !key.isEmpty
            && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." || $0 == "/" }
        return plain && key.first?.isLetter == true ? key : quoted(key)
    }

    /// A JSON string literal, which is also a YAML double-quoted scalar.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            // Controls, and the characters YAML counts as line breaks (NEL, LS, PS), escaped so both readers agree.
            case _
            where scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) || scalar.value == 0x2028
                || scalar.value == 0x2029:
                out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
