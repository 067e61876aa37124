/// A kind of output that flows along an edge: `data`, `file`, `image`, …
///
/// Kinds are open: a module adds its own as a static constant (FlowImaging adds `.image`). Each kind is
/// matched at run time by a provider protocol (``DataProvider`` for `.data`), and checked statically by the
/// validator from the kinds each ``TaskType`` declares.
public struct ProviderKind: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// The kind's name as shown in messages and `flowrun tasks`.
    public let name: String
    /// The type of the values of this kind, when the store can keep them (`cache: true`, values read across
    /// shards); `nil` for a kind that is not a value (`file`).
    public let valueType: (any StorableOutput.Type)?

    /// Creates a kind. Use one constant per kind.
    /// - Parameters:
    ///   - name: The kind's name.
    ///   - valueType: The type of its values, if the store can keep them.
    public init(_ name: String, valueType: (any StorableOutput.Type)? = nil) {
        self.name = name
        self.valueType = valueType
    }

    /// The kind's name, as diagnostics print it.
    public var description: String { name }

    /// Whether `lhs` sorts before `rhs`, by name.
    public static func < (lhs: ProviderKind, rhs: ProviderKind) -> Bool { lhs.name < rhs.name }
    /// Whether both kinds have the same name.
    public static func == (lhs: ProviderKind, rhs: ProviderKind) -> Bool { lhs.name == rhs.name }
    /// Hashes the kind's name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// Bytes with a source (``DataProvider``).
    public static let data = ProviderKind("data", valueType: DataPayload.self)
    /// A file written to disk (``FileProvider``).
    public static let file = ProviderKind("file")

    /// The kind a task that needs one of `needed` reads from a dependency that provides this kind: this kind, or
    /// the bytes (`data`) of a file another node wrote (`file`): a `probe` of what a `write` made. `nil` when it
    /// cannot read it.
    package func read(as needed: [ProviderKind]) -> ProviderKind? {
        if needed.contains(self) { return self }
        if self == .file, needed.contains(.data) { return .data }
        return nil
    }
}

/// What a task type needs from its dependencies.
public enum InputRequirement: Sendable, Hashable {
    /// No input: dependencies only order the run.
    case none
    /// Exactly one dependency providing one of these kinds (or the one named by `input:`).
    case oneOf([ProviderKind])
    /// Accepts whatever its dependencies provide, if anything (e.g. `noop`).
    case anything

    /// The kinds accepted, empty for `.none` and `.anything`.
    public var kinds: [ProviderKind] {
        if case .oneOf(let kinds) = self { return kinds }
        return []
    }
}
