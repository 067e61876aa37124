/// A parameter of a ``TaskParameters`` type that a node's item may set, named by the key path to its storage
/// (`.storage(\._path)` for `@Parameter var path`): listed in ``TaskParameters/itemParameters``.
///
/// The nodes of a task over items differ only in the values that mention `${item…}`: each copies the task's
/// parameters, read once, and sets those through here instead of reading every parameter again.
public struct ItemParameter<Root: TaskParameters>: Sendable {
    /// Sets the parameter of a copy of the task's parameters to a node's checked value; `false` when the value
    /// does not fit its type.
    let set: @Sendable (inout Root, Value, _ name: String, _ location: SourceLocation?) -> Bool
    /// The parameter as a default instance holds it: what its name is read from.
    let declaration: @Sendable (Root) -> any ParameterDeclaration

    /// The parameter whose storage (the property wrapper's `_name`) is at `keyPath`.
    public static func storage<Wrapped>(_ keyPath: any WritableKeyPath<Root, Parameter<Wrapped>> & Sendable) -> Self {
        Self(
            set: { parameters, value, name, location in
                parameters[keyPath: keyPath].read(value, named: name, at: location)
            },
            declaration: { $0[keyPath: keyPath] })
    }
}

extension Parameter {
    /// Takes a node's value, as ``init(from:)`` reads it; `false`, changing nothing, when it does not fit.
    @inlinable mutating func read(_ given: Value, named name: String, at location: SourceLocation?) -> Bool {
        guard let typed = Wrapped(parameter: given) else { return false }
        value = typed
        info = ParameterInfo(name: name, location: location)
        return true
    }
}

/// How the nodes of one task over items make their typed parameters: the task's, read once from the values they
/// share, with the item's values set by name (``TaskType/itemParameters(sharing:perNode:locations:)``).
struct ItemParameters: Sendable {
    /// Makes one node's typed parameters from its values; `nil` when one of the item's values is missing or does
    /// not fit, and the node's parameters are read whole.
    let make: @Sendable (ParameterValues) -> (any TaskParameters)?
}

extension TaskType {
    /// How the nodes of a task make their typed parameters from `shared`, the task's values that do not mention
    /// the item, and their own values of `perNode`, written at `locations`; `nil` when the type does not list one
    /// of `perNode` among its ``TaskParameters/itemParameters``.
    func itemParameters(sharing shared: ParameterValues, perNode: [String], locations: [String: SourceLocation])
        -> ItemParameters?
    {
        let byName = Parameters.itemParametersByName
        // One closure setting every item value, each calling the one before: a node runs them without iterating a
        // list of generic tuples, whose type this unspecialised code would look up for every node.
        var setAll: @Sendable (inout Parameters, ParameterValues) -> Bool = { _, _ in true }
        for name in perNode {
            guard let parameter = byName[name] else { return nil }
            let location = locations[name]
            let setBefore = setAll
            setAll = { parameters, values in
                guard setBefore(&parameters, values), let value = values[name] else { return false }
                return parameter.set(&parameters, value, name, location)
            }
        }
        let base = Parameters(shared)
        return ItemParameters { [setAll] values in
            var parameters = base
            return setAll(&parameters, values) ? parameters : nil
        }
    }
}
