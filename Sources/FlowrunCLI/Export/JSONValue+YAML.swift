import FlowBasics
import FlowKit

extension JSONValue {
    /// Block-style YAML, for manifests: map keys in the order given, so output is stable (golden files compare it
    /// byte for byte). Every string is a double-quoted scalar with JSON's escapes (a subset of YAML's), line
    /// breaks YAML knows included, so no value can turn into a number, a boolean or a null.
    func yaml() -> String {
        var out = ""
        writeYAML(into: &out, indent: 0)
        return out
    }

    /// A scalar or an empty collection on one line; `nil` for a collection with entries.
    private var scalarText: String? {
        switch self {
        case .list(let items) where !items.isEmpty: nil
        case .map(let entries) where !entries.isEmpty: nil
        default: String(decoding: json(escaping: .controlsAndBreaks), as: UTF8.self)
        }
    }

    private func writeYAML(into out: inout String, indent: Int) {
        let pad = String(repeating: " ", count: indent)
        switch self {
        case .map(let entries) where !entries.isEmpty:
            for (key, value) in entries {
                out += pad + Self.yamlKey(key) + ":"
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

    /// Keys are plain when they are simple names, as Kubernetes' are.
    private static func yamlKey(_ key: String) -> String {
        let plain =
            !key.isEmpty
            && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." || $0 == "/" }
        guard plain && key.first?.isLetter == true else {
            return String(decoding: JSONWriter.quoted(key, escaping: .controlsAndBreaks), as: UTF8.self)
        }
        return key
    }
}
