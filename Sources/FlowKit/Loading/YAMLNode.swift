import OrderedCollections

/// A YAML node with the place it was written: the tree libyaml's events are assembled into.
package struct YAMLNode: Sendable {
    /// How a scalar was written, which decides how it is typed and where its text starts.
    package enum ScalarStyle: Sendable, Hashable {
        /// Unquoted: typed by the YAML 1.2 core schema (`3` is an integer, `true` a boolean).
        case plain
        /// Quoted or block (`"3"`, `'3'`, `|`): always a string.
        case quoted
    }

    /// The node's content.
    package enum Content: Sendable {
        case scalar(String, ScalarStyle)
        case sequence([YAMLNode])
        case mapping([YAMLPair])
    }

    /// The content.
    package var content: Content
    /// Where the node starts.
    package var location: SourceLocation

    /// Creates a node.
    package init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    /// The scalar's text, if this is a scalar.
    package var scalar: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// Whether this is an unquoted null (`null`, `~` or nothing).
    package var isNullScalar: Bool {
        if case .scalar(let text, .plain) = content, case .null = Value(plainScalar: text) { return true }
        return false
    }

    /// The entries, if this is a mapping.
    package var mapping: [YAMLPair]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// The items, if this is a sequence.
    package var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// What kind of node this is, for messages ("expected a map, found a list").
    package var kindName: String {
        switch content {
        case .scalar(let text, let style): style == .plain ? Value(plainScalar: text).typeName : "a string"
        case .sequence: "a list"
        case .mapping: "a map"
        }
    }

    /// The node as a plain value, with scalars typed by the core schema.
    package var value: Value {
        switch content {
        case .scalar(let text, .plain): Value(plainScalar: text)
        case .scalar(let text, .quoted): .string(text)
        case .sequence(let items): .list(items.map(\.value))
        case .mapping(let pairs):
            .map(.init(pairs.map { ($0.key.scalar ?? "", $0.value.value) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    /// The number of nodes in this subtree, this one included.
    package var nodeCount: Int {
        switch content {
        case .scalar: 1
        case .sequence(let items): items.reduce(1) { $0 + $1.nodeCount }
        case .mapping(let pairs): pairs.reduce(1) { $0 + $1.key.nodeCount + $1.value.nodeCount }
        }
    }
}

/// A key and its value in a YAML mapping.
package struct YAMLPair: Sendable {
    /// The key node (a scalar in workflow files).
    package var key: YAMLNode
    /// The value node.
    package var value: YAMLNode

    /// Creates a pair.
    package init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}
