/// The parameters of one node after interpolation, with defaults filled in.
///
/// Generic code (the validator, the store's key) reads it by name; a task reads it typed, through its
/// ``TaskParameters`` (`Parameters(values)`, or ``NodeContext/parameters(as:)`` in an operation), after
/// validation has checked every value against the declaration.
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

    /// The task type's ``TaskParameters`` read from these values, once, when they were resolved: validation,
    /// the plan-time hooks (``TaskType/fileAccess(_:)``, …) and the operation share it instead of decoding the
    /// node's values again. `nil` until then, while a required parameter is missing, and after a value changes.
    package internal(set) var decoded: (any TaskParameters)?

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
        set {
            values[name] = newValue
            decoded = nil
        }
    }

    /// The names of the parameters present.
    public var names: Dictionary<String, Value>.Keys { values.keys }

    /// The value of each parameter present, by name: what two tasks compare to know they were given the same.
    package var valuesByName: [String: Value] { values }

    /// Whether the workflow gave this parameter (rather than it being defaulted or absent).
    public func isGiven(_ name: String) -> Bool { locations[name] != nil }

    /// Where the parameter's value was written, for diagnostics and failures.
    public func location(of name: String) -> SourceLocation? { locations[name] }
}
