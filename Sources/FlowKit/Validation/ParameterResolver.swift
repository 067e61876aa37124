import OrderedCollections

/// Resolves one node's parameters and checks them against the task type's declaration: each value's type and
/// range (``ParameterSpec/check(_:)``), then the node's values as a whole (``TaskType/validate(parameters:task:)``).
struct ParameterResolver {
    let task: TaskSpec
    let type: any TaskType
    /// What the task reads (see ``ParameterValues/inputKind``).
    var inputKind: ProviderKind?
    /// The texts already parsed, when many nodes of the task are resolved.
    var parsed: Resolver.ParsedTexts? = nil

    /// - Parameter checkingTheWhole: Whether to run the type's checks of the values as a whole
    ///   (``TaskType/validate(parameters:task:)``); a node validation already checked needs only its values.
    func resolve(in scope: Scope, checkingTheWhole: Bool = true, diagnostics: inout Diagnostics) -> ParameterValues {
        var locations: [String: SourceLocation] = [:]
        var resolved: [String: Value] = [:]
        for spec in type.parameters {
            if let pair = task.parameters[spec.name] {
                locations[spec.name] = pair.value.location
                // A reference without a value was reported where it is written; checking the rest would only
                // add "found null".
                // Text parameters take what is written (`argv: [v, 1.10]` passes "1.10", not 1.1); a bare `null`
                // or nothing at all still means no value.
                let asText = spec.type.takesText && !pair.value.isNullScalar
                guard
                    let value = Resolver.resolveIfComplete(
                        pair.value, in: scope, asText: asText, parsed: parsed, diagnostics: &diagnostics)
                else { continue }
                switch spec.check(value) {
                case .success(let checked):
                    resolved[spec.name] = checked
                case .failure(let problem):
                    diagnostics.error(
                        "parameter '\(spec.name)' of task '\(task.id.value)' (\(type.name)) \(problem.message)",
                        at: pair.value.location, suggestion: problem.suggestion,
                        hint: Self.paramOrigin(of: pair.value, group: task.group))
                }
            } else if let defaultValue = spec.defaultValue {
                resolved[spec.name] = defaultValue
            }
        }
        var values = ParameterValues(resolved, locations: locations)
        values.taskLocation = task.id.location
        values.inputKind = inputKind
        values.decoded = type.decode(values)
        guard checkingTheWhole else { return values }
        for diagnostic in type.validate(parameters: values, task: task.id.value) { diagnostics.append(diagnostic) }
        return values
    }

    /// For a value that is exactly `${params.NAME}`, a hint saying where the value really comes from — the
    /// error points at the reference, but the fix is in `params:` or a `--param`.
    private static func paramOrigin(of node: YAMLNode, group: String?) -> String? {
        guard let text = node.scalar?.trimmingSpaces(), text.hasPrefix("${params."), text.hasSuffix("}"),
            text.dropFirst(2).firstIndex(of: "$") == nil
        else { return nil }
        let name = text.dropFirst("${params.".count).dropLast()
        if let group {
            return "the value comes from params.\(name) of pipeline '\(group)': change it in the 'with:' that"
                + " imports it or with --param \(group).\(name)=…"
        }
        return "the value comes from params.\(name): change it under 'params:' or with --param \(name)=…"
    }
}
