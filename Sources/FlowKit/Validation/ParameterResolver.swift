import OrderedCollections

/// Resolves one node's parameters and checks them against the task type's declaration: each value's type and
/// range (``ParameterSpec/check(_:)``), then the node's values as a whole (``TaskType/validate(parameters:task:)``).
///
/// What does not mention the item is the same for every node of a task: a ``Template`` resolves and checks it
/// once, and each node resolves only the values that name its item.
struct ParameterResolver {
    let task: TaskSpec
    let type: any TaskType
    /// What the task reads (see ``ParameterValues/inputKind``).
    var inputKind: ProviderKind?
    /// The texts already parsed, when many nodes of the task are resolved.
    var parsed: Resolver.ParsedTexts? = nil

    /// A task's parameters as far as they are the same for all its nodes: the values that do not mention the
    /// item, resolved, checked and defaulted, and the declarations of those that do, with what is written.
    struct Template: Sendable {
        fileprivate var values: [String: Value] = [:]
        fileprivate var locations: [String: SourceLocation] = [:]
        fileprivate var perNode: [(spec: ParameterSpec, written: YAMLNode)] = []
        /// How each node makes its typed parameters from the task's, read once, when its type lets the item set
        /// every value that mentions it (``TaskParameters/itemParameters``).
        fileprivate var itemParameters: ItemParameters?
        /// Otherwise, the typed parameters read from ``values``, for the nodes to take instead of reading each again.
        fileprivate var typed: [String: any ParameterDeclaration] = [:]

        /// Whether a node's `values`, made from this template, have every value that mentions the item: a value
        /// that cannot be resolved or checked is left out (and reported).
        func isComplete(_ values: ParameterValues) -> Bool { values.ownCount == perNode.count }
    }

    /// The part of the task's parameters its nodes share, resolved in a scope of any of its nodes; problems with
    /// it are reported once, here.
    func template(in scope: Scope, diagnostics: inout Diagnostics) -> Template {
        var template = Template()
        for spec in type.parameters {
            if let pair = task.parameters[spec.name] {
                template.locations[spec.name] = pair.value.location
                var ignored = Diagnostics()  // a reference that cannot be read is reported when it is resolved
                if ReferenceScanner.references(in: pair.value, diagnostics: &ignored).contains(where: \.0.needsItem) {
                    template.perNode.append((spec, pair.value))
                } else {
                    template.values[spec.name] = resolve(
                        spec, written: pair.value, in: scope, diagnostics: &diagnostics)
                }
            } else if let defaultValue = spec.defaultValue {
                template.values[spec.name] = defaultValue
            }
        }
        // Read once for all the nodes of a task over items; a task without them has one set of values, read once.
        if !template.perNode.isEmpty {
            let shared = ParameterValues(template.values, locations: template.locations)
            let perNode = template.perNode.map(\.spec.name)
            template.itemParameters = type.itemParameters(
                sharing: shared, perNode: perNode, locations: template.locations)
            if template.itemParameters == nil {
                template.typed = type.sharedParameters(of: shared, excluding: Set(perNode))
            }
        }
        return template
    }

    /// - Parameter checkingTheWhole: Whether to run the type's checks of the values as a whole
    ///   (``TaskType/validate(parameters:task:)``); a node validation already checked needs only its values.
    func resolve(in scope: Scope, checkingTheWhole: Bool = true, diagnostics: inout Diagnostics) -> ParameterValues {
        resolve(
            in: scope, from: template(in: scope, diagnostics: &diagnostics), checkingTheWhole: checkingTheWhole,
            diagnostics: &diagnostics)
    }

    /// One node's parameters: the task's `template` with the values that mention the item resolved in `scope`.
    /// - Parameter checkingTheWhole: Whether to run the type's checks of the values as a whole
    ///   (``TaskType/validate(parameters:task:)``); a node validation already checked needs only its values.
    func resolve(
        in scope: Scope, from template: Template, checkingTheWhole: Bool = true, diagnostics: inout Diagnostics
    ) -> ParameterValues {
        var values = ParameterValues(shared: template.values, locations: template.locations)
        // By index, each declaration read where it is rather than copied out for every node.
        for index in template.perNode.indices {
            if let value = resolve(
                template.perNode[index].spec, written: template.perNode[index].written, in: scope,
                diagnostics: &diagnostics)
            {
                values.addOwn(template.perNode[index].spec.name, value)
            }
        }
        values.taskLocation = task.id.location
        values.inputKind = inputKind
        values.decoded = template.itemParameters?.make(values) ?? type.decode(values, reusing: template.typed)
        guard checkingTheWhole else { return values }
        for diagnostic in type.validate(parameters: values, task: task.id.value) { diagnostics.append(diagnostic) }
        return values
    }

    /// One written value resolved and checked against its declaration; `nil` when it cannot be.
    private func resolve(_ spec: ParameterSpec, written: YAMLNode, in scope: Scope, diagnostics: inout Diagnostics)
        -> Value?
    {
        // A reference without a value was reported where it is written; checking the rest would only add
        // "found null".
        // Text parameters take what is written (`argv: [v, 1.10]` passes "1.10", not 1.1); a bare `null` or
        // nothing at all still means no value.
        let asText = spec.type.takesText && !written.isNullScalar
        guard
            let value = Resolver.resolveIfComplete(
                written, in: scope, asText: asText, parsed: parsed, diagnostics: &diagnostics)
        else { return nil }
        switch spec.check(value) {
        case .success(let checked):
            return checked
        case .failure(let problem):
            diagnostics.error(
                "parameter '\(spec.name)' of task '\(task.id.value)' (\(type.name)) \(problem.message)",
                at: written.location, suggestion: problem.suggestion,
                hint: Self.paramOrigin(of: written, group: task.group))
            return nil
        }
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
