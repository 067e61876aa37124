import OrderedCollections

/// A JSON document held in memory, for the documents flowrun builds whole before writing them through
/// ``JSONWriter``: the workflow schema, a graph, an Argo manifest, a probed image's facts. (The report and the
/// trace are streamed through the writer instead, so their size never sits in memory.)
///
/// Maps keep their keys in the order given, so a document is written the same way every time; ``sortingKeys()``
/// orders them by name. Written with ``JSONWriter/value(_:pretty:)``, read with `JSONDecoder`.
package enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int)
    /// A number with a fraction; written as an integer when it has none (`2.0` as `2`), `null` when not finite.
    case number(Double)
    case string(String)
    case list([JSONValue])
    case map(OrderedDictionary<String, JSONValue>)

    /// The value under `key`, when this is a map that has it. Setting it on a map adds or replaces the entry (a
    /// new key goes last); on anything else, setting does nothing.
    package subscript(key: String) -> JSONValue? {
        get {
            guard case .map(let entries) = self else { return nil }
            return entries[key]
        }
        set {
            guard case .map(var entries) = self else { return }
            entries[key] = newValue
            self = .map(entries)
        }
    }

    /// The keys of a map, in order; none for anything else.
    package var keys: [String] {
        guard case .map(let entries) = self else { return [] }
        return Array(entries.keys)
    }

    /// The same document with every map's keys in ascending order.
    package func sortingKeys() -> JSONValue {
        switch self {
        case .list(let items): .list(items.map { $0.sortingKeys() })
        case .map(let entries):
            JSONValue(sorting: Dictionary(uniqueKeysWithValues: entries.map { ($0, $1.sortingKeys()) }))
        default: self
        }
    }

    /// The document as JSON text: compact, or indented by two spaces a level (`"key": value`, one entry a line).
    package func json(pretty: Bool = false, escaping: JSONWriter.Escaping = .controls) -> [UInt8] {
        var writer = JSONWriter(escaping: escaping)
        // A writer that keeps its document in memory has nowhere to fail.
        try? writer.value(self, pretty: pretty)
        return writer.contents()
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package init(stringLiteral text: String) { self = .string(text) }
    package init(integerLiteral number: Int) { self = .integer(number) }
    package init(floatLiteral number: Double) { self = .number(number) }
    package init(booleanLiteral flag: Bool) { self = .bool(flag) }
    package init(arrayLiteral items: JSONValue...) { self = .list(items) }
    /// A map with the entries in the order written; a key written twice keeps its last value.
    package init(dictionaryLiteral entries: (String, JSONValue)...) {
        self = .map(OrderedDictionary(entries, uniquingKeysWith: { $1 }))
    }
}

extension JSONValue {
    /// A list of strings.
    package init(_ texts: some Sequence<String>) { self = .list(texts.map(JSONValue.string)) }

    /// A map of `entries` with its keys in ascending order.
    package init(sorting entries: [String: JSONValue]) {
        self = .map(OrderedDictionary(uniqueKeysWithValues: entries.sorted { $0.key < $1.key }))
    }

    /// `text`, or `null` when there is none.
    package init(_ text: String?) { self = text.map(JSONValue.string) ?? .null }

    /// `number`, or `null` when there is none.
    package init(_ number: Int?) { self = number.map(JSONValue.integer) ?? .null }

    /// `number`, or `null` when there is none.
    package init(_ number: Double?) { self = number.map(JSONValue.number) ?? .null }
}

extension JSONValue: Decodable {
    /// Any JSON value: a whole number as ``integer(_:)`` where it fits in an `Int`, other numbers as ``number(_:)``.
    package init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            var entries = OrderedDictionary<String, JSONValue>()
            for key in container.allKeys {
                entries[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
            }
            self = .map(entries)
        } else if var container = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !container.isAtEnd { items.append(try container.decode(JSONValue.self)) }
            self = .list(items)
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? container.decode(Int.self) {
                self = .integer(number)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
