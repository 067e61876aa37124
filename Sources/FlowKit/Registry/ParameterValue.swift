import Foundation

/// A Swift type a task parameter may have: it names its workflow type (checked before anything runs) and reads
/// itself from a checked workflow value.
///
/// FlowKit provides `String`, `Double`, `Int`, `Bool`, `Duration`, `[String]`, ``StringMap``, ``Value`` (any value,
/// the task checks it) and `Optional` of each. An enumeration of string raw values declares a choice: conform
/// it with `enum Fit: String, CaseIterable, ParameterValue { case contain, cover }` and its cases are the
/// allowed values, listed by `flowrun tasks` and the JSON Schema.
public protocol ParameterValue: Sendable {
    /// The workflow type the validator checks a value against.
    static var parameterType: ParameterSpec.ValueType { get }
    /// Whether the parameter may be absent without a default (`Optional`).
    static var isOptional: Bool { get }
    /// The value of an absent optional parameter (`nil`), or `nil` when absence is not a value.
    static var absent: Self? { get }
    /// Reads a value the validator has checked against ``parameterType``; `nil` when it does not fit.
    init?(parameter value: Value)
    /// The value as written in a workflow, for defaults shown by `flowrun tasks` and the schema.
    var parameterValue: Value { get }
}

extension ParameterValue {
    /// `false`: a parameter of a type that is not `Optional` is present or has a default.
    @inlinable public static var isOptional: Bool { false }
    /// `nil`: absence is not a value of a type that is not `Optional`.
    @inlinable public static var absent: Self? { nil }
}

extension Optional: ParameterValue where Wrapped: ParameterValue {
    /// The wrapped type's workflow type.
    public static var parameterType: ParameterSpec.ValueType { Wrapped.parameterType }
    /// `true`: an optional parameter may be absent.
    @inlinable public static var isOptional: Bool { true }
    /// An absent optional parameter is `nil`.
    @inlinable public static var absent: Self? { .some(nil) }
    /// Reads the wrapped value; `nil` when it does not fit.
    public init?(parameter value: Value) {
        guard let wrapped = Wrapped(parameter: value) else { return nil }
        self = wrapped
    }
    /// The wrapped value as written in a workflow, or `null` when absent.
    public var parameterValue: Value { self?.parameterValue ?? .null }
}

extension String: ParameterValue {
    /// A string.
    public static var parameterType: ParameterSpec.ValueType { .string }
    /// A string, or a scalar as its text.
    public init?(parameter value: Value) {
        switch value {
        case .string, .int, .double, .bool: self = value.description
        default: return nil
        }
    }
    /// The string.
    public var parameterValue: Value { .string(self) }
}

extension Double: ParameterValue {
    /// A number.
    public static var parameterType: ParameterSpec.ValueType { .number }
    /// A number, integer or not.
    public init?(parameter value: Value) {
        guard let number = value.doubleValue else { return nil }
        self = number
    }
    /// The number.
    public var parameterValue: Value { .double(self) }
}

extension Int: ParameterValue {
    /// An integer.
    public static var parameterType: ParameterSpec.ValueType { .integer }
    /// An integer, or a number without a fractional part.
    public init?(parameter value: Value) {
        guard let number = value.intValue else { return nil }
        self = number
    }
    /// The integer.
    public var parameterValue: Value { .int(self) }
}

extension Bool: ParameterValue {
    /// A boolean.
    public static var parameterType: ParameterSpec.ValueType { .bool }
    /// `true` or `false`.
    public init?(parameter value: Value) {
        guard let flag = value.boolValue else { return nil }
        self = flag
    }
    /// The boolean.
    public var parameterValue: Value { .bool(self) }
}

extension Duration: ParameterValue {
    /// A duration.
    public static var parameterType: ParameterSpec.ValueType { .duration }
    /// A duration string (`250ms`, `20s`, `2m`) or a number of seconds.
    public init?(parameter value: Value) {
        switch value {
        case .string(let text):
            guard let duration = Duration.parse(workflowText: text) else { return nil }
            self = duration
        case let value:
            guard let duration = value.doubleValue.flatMap(Duration.inWorkflowRange) else { return nil }
            self = duration
        }
    }
    /// The duration in seconds.
    public var parameterValue: Value { .double(seconds) }
}

extension Array: ParameterValue where Element == String {
    /// A list of strings.
    public static var parameterType: ParameterSpec.ValueType { .stringList }
    /// A list of scalars, or one string as a list of one.
    public init?(parameter value: Value) {
        switch value {
        case .list(let items):
            guard items.allSatisfy({ $0.listValue == nil && $0.mapValue == nil }) else { return nil }
            self = items.map(\.description)
        case .string(let text): self = [text]
        default: return nil
        }
    }
    /// The list of strings.
    public var parameterValue: Value { .list(map(Value.string)) }
}

extension Value: ParameterValue {
    /// Any value: the task checks it itself.
    public static var parameterType: ParameterSpec.ValueType { .any }
    /// Any value, as it is.
    public init?(parameter value: Value) { self = value }
    /// The value itself.
    public var parameterValue: Value { self }
}

extension ParameterValue where Self: RawRepresentable & CaseIterable, RawValue == String {
    /// One of the cases' raw values.
    public static var parameterType: ParameterSpec.ValueType { .oneOf(allCases.map(\.rawValue)) }
    /// The case whose raw value the string is; `nil` for any other.
    public init?(parameter value: Value) {
        guard let text = value.stringValue else { return nil }
        self.init(rawValue: text)
    }
    /// The case's raw value.
    public var parameterValue: Value { .string(rawValue) }
}
