/// Reads a ``TaskParameters`` value from a node's ``ParameterValues`` through the type's synthesized
/// `Decodable` conformance, which asks for each ``Parameter`` by its property's name — as swift-argument-parser
/// reads `@Option`s — so the declaration is the only place a name is written.
struct ParametersDecoder: Decoder {
    /// What every parameter reads from, held once for all of them.
    final class Source: Sendable {
        let values: ParameterValues
        /// The declared defaults, read where `values` has none.
        let defaults: [String: Value]
        /// Parameters already read, by name, taken as they are: those the nodes of a task share.
        let shared: [String: any ParameterDeclaration]

        init(values: ParameterValues, defaults: [String: Value], shared: [String: any ParameterDeclaration]) {
            self.values = values
            self.defaults = defaults
            self.shared = shared
        }
    }

    let source: Source
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// - Parameter shared: Parameters already read, taken instead of reading them again from `values`.
    init(values: ParameterValues, defaults: [String: Value], shared: [String: any ParameterDeclaration] = [:]) {
        source = Source(values: values, defaults: defaults, shared: shared)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container(source: source))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Self.unsupported(codingPath) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Self.unsupported(codingPath) }

    static func unsupported(_ path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(
            .init(codingPath: path, debugDescription: "a TaskParameters property must be declared with @Parameter"))
    }

    /// Hands each `@Parameter` its value and location; anything else is a declaration mistake.
    private struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let source: Source
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { source.values.names.compactMap { Key(stringValue: $0) } }
        func contains(_ key: Key) -> Bool { true }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let name = key.stringValue
            // Cast only when found: a cast to an unspecialized `T` looks its metadata up, for every parameter.
            if let shared = source.shared[name], let typed = shared as? T { return typed }
            return try T(from: ParameterValueDecoder(name: name, source: source))
        }

        func decodeNil(forKey key: Key) throws -> Bool { throw unsupported(key) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { throw unsupported(key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { throw unsupported(key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw unsupported(key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw unsupported(key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { throw unsupported(key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw unsupported(key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw unsupported(key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw unsupported(key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { throw unsupported(key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw unsupported(key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw unsupported(key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw unsupported(key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw unsupported(key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw unsupported(key) }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw unsupported(key)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw unsupported(key) }
        func superDecoder() throws -> any Decoder { throw ParametersDecoder.unsupported(codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw unsupported(key) }

        private func unsupported(_ key: Key) -> DecodingError { ParametersDecoder.unsupported([key]) }
    }
}

/// The decoder one ``Parameter`` reads itself from.
///
/// Two words and a reference, so that handing it to a parameter as `any Decoder` fits the existential's own
/// storage: a node's parameters are read without allocating for each.
struct ParameterValueDecoder: Decoder {
    let name: String
    let source: ParametersDecoder.Source
    /// The value given, or the declared default.
    var value: Value? { source.values[name] ?? source.defaults[name] }
    /// Where the value was written, when it was.
    var location: SourceLocation? { source.values.location(of: name) }
    /// The parameter's key: made only when an error names it, not for every parameter of every node.
    var codingPath: [any CodingKey] { [Name(stringValue: name)] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw ParametersDecoder.unsupported(codingPath)
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw ParametersDecoder.unsupported(codingPath) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw ParametersDecoder.unsupported(codingPath)
    }

    /// A parameter's name as a coding key.
    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
