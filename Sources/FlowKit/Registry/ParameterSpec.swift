/// One parameter of a task type as validation, `flowrun tasks` and the schema see it: its name, type, default and
/// allowed range, derived from the type's ``Parameter`` declaration.
public struct ParameterSpec: Sendable {
    /// The type of a parameter value.
    public enum ValueType: Sendable, Hashable, CustomStringConvertible {
        case string
        case number
        case integer
        case bool
        case duration
        /// A string from a fixed set.
        case oneOf([String])
        /// `true` or `false`, or a string from a fixed set (`withoutEnlargement: skip`).
        case boolOr([String])
        case stringList
        case stringMap
        /// Any value; the task checks it itself.
        case any

        /// Whether values of this type are text, so unquoted YAML scalars are taken as written, not typed.
        var takesText: Bool {
            switch self {
            case .string, .oneOf, .stringList, .stringMap: true
            case .number, .integer, .bool, .boolOr, .duration, .any: false
            }
        }

        /// The type's name, as `flowrun tasks` and diagnostics print it.
        public var description: String {
            switch self {
            case .string: "string"
            case .number: "number"
            case .integer: "integer"
            case .bool: "boolean"
            case .boolOr(let options): (["true", "false"] + options).joined(separator: "|")
            case .duration: "duration"
            case .oneOf(let options): options.joined(separator: "|")
            case .stringList: "list of strings"
            case .stringMap: "map of strings"
            case .any: "any"
            }
        }
    }

    /// The key in the task's YAML map.
    public let name: String
    /// The value type, checked before the task runs.
    public let type: ValueType
    /// The value when the key is absent, or `nil` when there is none.
    public let defaultValue: Value?
    /// Whether the key must be present.
    public let isRequired: Bool
    /// The inclusive range of a numeric value, if limited.
    public let range: ClosedRange<Double>?
    /// One line for `flowrun tasks` and the JSON Schema.
    public let summary: String

    /// Creates a parameter description; task types declare theirs with ``Parameter``, from which this is derived.
    init(
        _ name: String, _ type: ValueType, default defaultValue: Value? = nil, required isRequired: Bool = false,
        range: ClosedRange<Double>? = nil, summary: String
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.isRequired = isRequired
        self.range = range
        self.summary = summary
    }
}

/// A rule over several parameters of one task.
public enum ParameterConstraint: Sendable, Hashable {
    /// At most one of these keys may be given.
    case mutuallyExclusive([String])
    /// At least one of these keys must be given.
    case oneRequired([String])
    /// Key `key` may only be given together with all of `requires`.
    case requires(key: String, requires: [String])
}
