import OrderedCollections

/// A map of text values in the order written, such as HTTP headers or environment variables.
public struct StringMap: ParameterValue, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    private var entries: OrderedDictionary<String, String>

    /// A map of these entries, in this order.
    public init(dictionaryLiteral elements: (String, String)...) {
        entries = OrderedDictionary(elements, uniquingKeysWith: { $1 })
    }

    /// A map of strings.
    public static var parameterType: ParameterSpec.ValueType { .stringMap }
    /// A map whose values are scalars, each kept as its text.
    public init?(parameter value: FlowKit.Value) {
        guard let map = value.mapValue, map.values.allSatisfy({ $0.listValue == nil && $0.mapValue == nil }) else {
            return nil
        }
        entries = map.mapValues(\.description)
    }
    /// The map as written in a workflow.
    public var parameterValue: FlowKit.Value { .map(entries.mapValues(FlowKit.Value.string)) }

    /// The value of a key.
    public subscript(key: String) -> String? { entries[key] }

    /// Whether the map has no entry.
    public var isEmpty: Bool { entries.isEmpty }

    /// The entries in the order written.
    public func makeIterator() -> IndexingIterator<[(key: String, value: String)]> {
        entries.elements.map { (key: $0.key, value: $0.value) }.makeIterator()
    }
}
