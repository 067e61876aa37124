/// The parameters of one node after interpolation, with defaults filled in.
///
/// Generic code (the validator, the store's key) reads it by name; a task reads it typed, through its
/// ``TaskParameters`` (`Parameters(values)`, or ``NodeContext/parameters(as:)`` in an operation), after
/// validation has checked every value against the declaration.
public struct ParameterValues: Sendable {
    private var values: [String: Value]
    /// A node's values of the parameters that mention its item, beside ``values``, which are then its task's and
    /// shared by every node of it: a node of a 100,000-item task holds the one or two values of its own, not a
    /// copy of the task's. The first is held in place, as most nodes have one, the others in ``moreOwn``. Never
    /// names a key of ``values``.
    private var firstOwn: (name: String, value: Value)?
    private var moreOwn: [(name: String, value: Value)] = []
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

    /// A node's values: those its task's nodes share, then its own (names that `shared` does not have), added
    /// with ``addOwn(_:_:)``.
    init(shared: [String: Value], locations: [String: SourceLocation]) {
        values = shared
        self.locations = locations
    }

    /// Adds one of a node's own values (a name its shared values do not have).
    mutating func addOwn(_ name: String, _ value: Value) {
        if firstOwn == nil { firstOwn = (name, value) } else { moreOwn.append((name, value)) }
    }

    /// The value of a parameter, if given or defaulted.
    public subscript(name: String) -> Value? {
        get {
            if let firstOwn, firstOwn.name == name { return firstOwn.value }
            for entry in moreOwn where entry.name == name { return entry.value }
            return values[name]
        }
        set {
            values = valuesByName
            firstOwn = nil
            moreOwn = []
            values[name] = newValue
            decoded = nil
        }
    }

    /// How many values are the node's own (``addOwn(_:_:)``).
    var ownCount: Int { firstOwn == nil ? 0 : 1 + moreOwn.count }

    /// The names of the parameters present.
    public var names: [String] { Array(values.keys) + (firstOwn.map { [$0.name] } ?? []) + moreOwn.map(\.name) }

    /// The value of each parameter present, by name: what two tasks compare to know they were given the same.
    package var valuesByName: [String: Value] {
        var all = values
        if let firstOwn { all[firstOwn.name] = firstOwn.value }
        for entry in moreOwn { all[entry.name] = entry.value }
        return all
    }

    /// Whether the workflow gave this parameter (rather than it being defaulted or absent).
    public func isGiven(_ name: String) -> Bool { locations[name] != nil }

    /// Where the parameter's value was written, for diagnostics and failures.
    public func location(of name: String) -> SourceLocation? { locations[name] }
}
