/// The parameters of one node after interpolation, with defaults filled in.
///
/// Validation has checked every value against its ``ParameterSpec`` before an operation sees it, so the typed
/// accessors return `nil` only for parameters that are absent and have no default.
public struct ParameterValues: Sendable {
    private var values: [String: Value]
    private var locations: [String: SourceLocation]

    /// Where the task is written (its id), for problems that belong to no single parameter, such as a
    /// missing one of several keys.
    package internal(set) var taskLocation: SourceLocation?

    /// The kind the task reads, as the graph tells before anything runs (the kind its chosen dependency
    /// provides); `nil` when it reads nothing or anything. `write`, for one, checks image extensions only
    /// when it writes an image.
    package internal(set) var inputKind: ProviderKind?

    /// Creates parameter values.
    /// - Parameters:
    ///   - values: The value of each parameter given, by name.
    ///   - locations: Where each value was written, by name.
    public init(_ values: [String: Value] = [:], locations: [String: SourceLocation] = [:]) {
        self.values = values
        self.locations = locations
    }

    /// The value of a parameter, if given or defaulted.
    public subscript(name: String) -> Value? {
        get { values[name] }
        set { values[name] = newValue }
    }

    /// The names of the parameters present.
    public var names: Dictionary<String, Value>.Keys { values.keys }

    /// Whether the workflow gave this parameter (rather than it being defaulted or absent).
    public func isGiven(_ name: String) -> Bool { locations[name] != nil }

    /// Where the parameter's value was written, for diagnostics and failures.
    public func location(of name: String) -> SourceLocation? { locations[name] }

    /// The value as a string.
    public func string(_ name: String) -> String? { values[name]?.stringValue }
    /// The value as a number.
    public func double(_ name: String) -> Double? { values[name]?.doubleValue }
    /// The value as an integer.
    public func int(_ name: String) -> Int? { values[name]?.intValue }
    /// The value as a boolean.
    public func bool(_ name: String) -> Bool? { values[name]?.boolValue }
    /// The value as a duration (a duration string or a number of seconds).
    public func duration(_ name: String) -> Duration? {
        switch values[name] {
        case .string(let text)?: Duration.parse(workflowText: text)
        case let value?: value.doubleValue.map { .milliseconds(Int64(($0 * 1000).rounded())) }
        case nil: nil
        }
    }
    /// The value as a list of strings.
    public func stringList(_ name: String) -> [String]? {
        values[name]?.listValue?.map(\.description)
    }
    /// The value as a map of strings, in the order written.
    public func stringMap(_ name: String) -> [(key: String, value: String)]? {
        values[name]?.mapValue?.map { ($0.key, $0.value.description) }
    }
}
