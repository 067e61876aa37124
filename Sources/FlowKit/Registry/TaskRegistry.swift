/// The task types a workflow may use, by name.
///
/// A registry is a value: build one from ``builtIn`` (or empty) and add types with ``adding(_:)``.
/// FlowImaging offers `TaskRegistry.standard`, the built-ins plus the image tasks.
public struct TaskRegistry: Sendable {
    private var types: [String: any TaskType] = [:]
    private var order: [String] = []

    /// Creates a registry holding the given types.
    public init(_ types: [any TaskType] = []) {
        for type in types { add(type) }
    }

    /// The engine's own task types: `noop`, `sleep`, `fetch`, `command`.
    public static var builtIn: TaskRegistry {
        TaskRegistry([NoopTask(), SleepTask(), FetchTask(), CommandTask()])
    }

    /// Adds a task type.
    ///
    /// A developer's mistake in a type's declaration stops the program here, before any workflow is read, as
    /// argument-parser checks a command's declaration: a second type under a name already registered, or a
    /// parameter named like a key every task has (`timeout`, `input`), which the task key would silently shadow.
    public mutating func add(_ type: any TaskType) {
        if let registered = types[type.name] {
            preconditionFailure(
                "task type '\(type.name)' is registered twice (\(Swift.type(of: registered)) and "
                    + "\(Swift.type(of: type))): give one of them another name")
        }
        for parameter in type.parameters where TaskKey.names.contains(parameter.name) {
            preconditionFailure(
                "task type '\(type.name)' declares a parameter '\(parameter.name)', a key every task has: "
                    + "rename the parameter")
        }
        types[type.name] = type
        order.append(type.name)
    }

    /// A copy with more task types.
    public func adding(_ more: any TaskType...) -> TaskRegistry {
        var copy = self
        for type in more { copy.add(type) }
        return copy
    }

    /// The type registered under a name.
    public subscript(name: String) -> (any TaskType)? { types[name] }

    /// Every type, in the order added.
    public var all: [any TaskType] { order.compactMap { types[$0] } }

    /// Every type name, in the order added.
    public var names: [String] { order }

    /// The types that consume one kind and provide another, for hints such as "add a decode task".
    package func adapters(from provided: ProviderKind, to needed: [ProviderKind]) -> [any TaskType] {
        all.filter { type in
            guard let output = type.provides, needed.contains(output) else { return false }
            return type.consumes.kinds.contains(provided)
        }
    }
}
