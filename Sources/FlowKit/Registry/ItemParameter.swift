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
        var found: [(name: String, location: SourceLocation?, parameter: ItemParameter<Parameters>)] = []
        for name in perNode {
            guard let parameter = byName[name] else { return nil }
            found.append((name, locations[name], parameter))
        }
        let setters = found
        let base = Parameters(shared)
        return ItemParameters { values in
            var parameters = base
            for setter in setters {
                guard let value = values[setter.name],
                    setter.parameter.set(&parameters, value, setter.name, setter.location)
                else { return nil }
            }
            return parameters
        }
    }
}
