import Foundation
import OrderedCollections

/// What `${…}` references resolve against for one node.
package struct Scope: Sendable {
    /// The workflow's params after overrides.
    package var params: [String: Value]
    /// The environment, for `${env.NAME}`.
    package var environment: [String: String]
    /// The node's item and its index, if the node is expanded.
    package var item: Item?
    /// The imported pipeline the node's task comes from, whose params `${params.NAME}` names.
    package var group: String?

    /// Creates a scope.
    package init(
        params: [String: Value], environment: [String: String], item: Item? = nil,
        group: String? = nil
    ) {
        self.params = params
        self.environment = environment
        self.item = item
        self.group = group
    }

    /// A node's `forEach` item.
    package struct Item: Sendable {
        /// What `${item}` is.
        package var value: Value
        /// Its position in the list.
        package var index: Int
        /// For a file item: the folder `${item.rel}` is relative to (empty for a line of a file list).
        package var base: String?

        /// Creates an item.
        package init(value: Value, index: Int, base: String? = nil) {
            self.value = value
            self.index = index
            self.base = base
        }
    }
}

/// Resolves interpolated YAML values into plain ``Value``s.
///
/// A value that is exactly one reference keeps the referenced value's type (`${params.intensity}` stays a
/// number); references inside longer text are inserted as text.
enum Resolver {
    static func resolve(_ node: YAMLNode, in scope: Scope, diagnostics: inout Diagnostics) -> Value {
        var unresolved = false
        return resolve(node, in: scope, diagnostics: &diagnostics, unresolved: &unresolved)
    }

    /// Resolves a value, or returns `nil` when one of its references has no value. Every such reference has
    /// been reported (unknown param or env, item outside a forEach, missing item key), so callers skip
    /// further checks of the value instead of piling a "found null" error onto the real one.
    /// - Parameter asText: Take unquoted scalars as the text written (`1.10`, `007`, `null` stay as written)
    ///   rather than typing them by YAML's core schema: for values that are text to whoever reads them, such as a
    ///   program's arguments.
    ///   - parsed: Where the texts already parsed are kept, to resolve many nodes' values without parsing each
    ///     node's again.
    static func resolveIfComplete(
        _ node: YAMLNode, in scope: Scope, asText: Bool = false, parsed: ParsedTexts? = nil,
        diagnostics: inout Diagnostics
    ) -> Value? {
        var unresolved = false
        let value = resolve(
            node, in: scope, asText: asText, parsed: parsed, diagnostics: &diagnostics, unresolved: &unresolved)
        return unresolved ? nil : value
    }

    /// The interpolations of a workflow's texts, each parsed once for all the nodes that resolve it: kept only
    /// when parsing found nothing wrong, so a problem is reported as it is without it.
    final class ParsedTexts {
        fileprivate var parsed: [Location: Interpolation] = [:]

        /// A text where it is written: one text may be written in several places, whose references differ by
        /// their locations.
        fileprivate struct Location: Hashable {
            var text: String
            var start: SourceLocation
        }
    }

    private static func resolve(
        _ node: YAMLNode, in scope: Scope, asText: Bool = false, parsed: ParsedTexts? = nil,
        diagnostics: inout Diagnostics, unresolved: inout Bool
    ) -> Value {
        switch node.content {
        case .scalar(let text, let style):
            guard Interpolation.mayReference(text) else { return asText ? .string(text) : node.value }
            let start = node.textStart(style)
            let key = ParsedTexts.Location(text: text, start: start)
            let interpolation: Interpolation
            if let known = parsed?.parsed[key] {
                interpolation = known
            } else {
                var parseProblems = Diagnostics()
                interpolation = Interpolation(parsing: text, at: start, diagnostics: &parseProblems)
                if parseProblems.hasErrors { unresolved = true }
                if parseProblems.all.isEmpty { parsed?.parsed[key] = interpolation }
                diagnostics.append(contentsOf: parseProblems)
            }
            if let (reference, location) = interpolation.wholeReference {
                guard let value = value(of: reference, at: location, in: scope, diagnostics: &diagnostics) else {
                    unresolved = true
                    return .null
                }
                return value
            }
            var result = ""
            for segment in interpolation.segments {
                switch segment {
                case .text(let literal): result += literal
                case .reference(let reference, let location):
                    if let value = value(of: reference, at: location, in: scope, diagnostics: &diagnostics) {
                        result += value.description
                    } else {
                        unresolved = true
                    }
                }
            }
            return .string(result)
        case .sequence(let items):
            return .list(
                items.map {
                    resolve(
                        $0, in: scope, asText: asText, parsed: parsed, diagnostics: &diagnostics,
                        unresolved: &unresolved)
                })
        case .mapping(let pairs):
            return .map(
                .init(
                    pairs.map {
                        (
                            $0.key.scalar ?? "",
                            resolve(
                                $0.value, in: scope, asText: asText, parsed: parsed, diagnostics: &diagnostics,
                                unresolved: &unresolved)
                        )
                    },
                    uniquingKeysWith: { first, _ in first }))
        }
    }

    /// The value of one reference. Unknown names were reported by the reference validator; item keys that a
    /// map item lacks are reported here, since only planning sees the items.
    static func value(
        of reference: Reference, at location: SourceLocation, in scope: Scope, diagnostics: inout Diagnostics
    ) -> Value? {
        switch reference {
        case .param(let name): return scope.params[scope.group.map { "\($0).\(name)" } ?? name]
        case .env(let name): return scope.environment[name].map(Value.string)
        // Left for the command to fill in when it runs, from what its dependencies wrote.
        case .inputFiles: return .string("${\(reference)}")
        // Left for the write to fill in once it has encoded the bytes it names the file by.
        case .outputHash: return .string("${\(reference)}")
        case .item: return scope.item?.value
        case .itemIndex: return scope.item.map { .int($0.index) }
        case .itemPart(let part):
            guard let item = scope.item else { return nil }
            return itemPart(part, of: item, at: location, diagnostics: &diagnostics)
        case .itemKey(let key):
            guard let item = scope.item else { return nil }
            guard case .map(let map) = item.value else {
                // No item index in the message, so a list of 1,000 strings gives one diagnostic, not 1,000.
                // `${item.stme}` is more often a misspelt built-in than a key of items that are not maps.
                diagnostics.error(
                    "'${item.\(key)}' needs the forEach items to be maps, found \(item.value.typeName)",
                    at: location, suggestion: Suggestion.closest(to: key, in: builtInItemKeys).map { "${item.\($0)}" },
                    hint: "write the items as maps ({ \(key): … }) or use ${item}")
                return nil
            }
            guard let value = map[key] else {
                // No item index in the message, so the same mistake seen from every item is reported once.
                diagnostics.error(
                    "'${item.\(key)}' names a key the forEach items do not have", at: location,
                    suggestion: Suggestion.closest(to: key, in: map.keys + builtInItemKeys).map { "${item.\($0)}" },
                    hint: "the items' keys are: \(map.keys.joined(separator: ", "))")
                return nil
            }
            return value
        }
    }

    /// The `${item.…}` names every item has, maps or not.
    static let builtInItemKeys = ["index"] + ItemPart.allCases.map(\.rawValue)

    /// The file name of a path or URL without directory, query or extension, made safe to use in a path:
    /// never empty, `.` or `..`, never containing a `/` — so `${item.stem}` cannot escape an output folder.
    static func stem(of text: String) -> String {
        if let stem = plainStem(of: text) { return stem }
        let name = lastComponent(of: text)
        let dot = isASCII(name) ? name.utf8.lastIndex(of: UInt8(ascii: ".")) : name.lastIndex(of: ".")
        guard let dot, dot != name.startIndex else { return safeName(String(name)) }
        return safeName(String(name[..<dot]))
    }

    /// The last non-empty `/`-separated part of a path or URL, without a URL's query or fragment (empty when
    /// there is none). Found from the end, without splitting the whole text: it is asked for every item.
    static func lastComponent(of text: String) -> Substring {
        var path = Substring(text)
        // A query or fragment first, which most paths lack; the scheme's `://` found in the bytes, not by Foundation.
        let query =
            isASCII(path)
            ? path.utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            : path.firstIndex { $0 == "?" || $0 == "#" }
        if let query, path.utf8.contains("://".utf8) {
            path = path[..<query]
        }
        return lastPart(of: path)
    }

    /// What `text.split(separator: "/").last ?? ""` is, found from the end.
    private static func lastPart(of text: Substring) -> Substring {
        guard isASCII(text) else { return lastPartOfGraphemes(text) }
        let slash = UInt8(ascii: "/")
        let bytes = text.utf8
        guard let last = bytes.lastIndex(where: { $0 != slash }) else { return text[text.endIndex...] }
        let start = bytes[..<last].lastIndex(of: slash).map(bytes.index(after:)) ?? bytes.startIndex
        return text[start..<bytes.index(after: last)]
    }

    /// ``lastPart(of:)`` of text with other than ASCII, Character by Character: a `/` joined to a combining mark
    /// is no `/`.
    private static func lastPartOfGraphemes(_ text: Substring) -> Substring {
        var text = text
        while text.hasSuffix("/") { text = text.dropLast() }
        guard let slash = text.lastIndex(of: "/") else { return text }
        return text[text.index(after: slash)...]
    }

    /// Whether `text` is ASCII, where each Character is one byte (or CR LF, which holds no `/`, `.`, `?` or `#`):
    /// its bytes are then searched for those, the same search as by Character without decoding graphemes.
    private static func isASCII(_ text: Substring) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// A name made safe to use as one path component: its last `/`-separated part, never empty, `.` or `..`,
    /// without backslashes.
    static func safeName(_ text: String) -> String {
        var name = String(lastPart(of: Substring(text)))
        // By scalar, not by character: a `/` joined to a combining mark is one character that is no `/`, but the
        // file system still reads a separator in its bytes.
        if name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }) {
            name = String(String.UnicodeScalarView(name.unicodeScalars.map { $0 == "/" || $0 == "\\" ? "_" : $0 }))
        }
        if name.isEmpty || name == "." || name == ".." || name.hasPrefix("..") {
            name = "_" + name.replacingOccurrences(of: ".", with: "_")
        }
        return name
    }
}
