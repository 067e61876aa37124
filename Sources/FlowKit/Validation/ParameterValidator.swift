import OrderedCollections

/// Resolves one node's parameters and checks them against the task type: required keys, value types,
/// ranges, multi-key constraints, then the type's own checks.
struct ParameterValidator {
    let task: TaskSpec
    let type: any TaskType
    /// What the task reads (see ``ParameterValues/inputKind``).
    var inputKind: ProviderKind?

    func resolve(in scope: Scope, diagnostics: inout Diagnostics) -> ParameterValues {
        var values = ParameterValues()
        var locations: [String: SourceLocation] = [:]
        var resolved: [String: Value] = [:]
        for spec in type.parameters {
            if let pair = task.parameters[spec.name] {
                locations[spec.name] = pair.value.location
                // A reference without a value was reported where it is written; checking the rest would only
                // add "found null".
                guard let value = Resolver.resolveIfComplete(pair.value, in: scope, diagnostics: &diagnostics) else {
                    continue
                }
                let origin = Self.paramOrigin(of: pair.value, group: task.group)
                if let checked = check(
                    value, against: spec, at: pair.value.location, origin: origin, diagnostics: &diagnostics)
                {
                    resolved[spec.name] = checked
                }
            } else if let defaultValue = spec.defaultValue {
                resolved[spec.name] = defaultValue
            } else if spec.isRequired {
                diagnostics.error(
                    "task '\(task.id.value)' (\(type.name)) is missing required parameter '\(spec.name)'",
                    at: task.id.location,
                    hint: "add '\(spec.name):' — \(spec.summary)")
            }
        }
        values = ParameterValues(resolved, locations: locations)
        values.taskLocation = task.id.location
        values.inputKind = inputKind
        checkConstraints(values, diagnostics: &diagnostics)
        type.validate(values, into: &diagnostics)
        return values
    }

    private func checkConstraints(_ values: ParameterValues, diagnostics: inout Diagnostics) {
        let given = { (name: String) in values.isGiven(name) }
        for constraint in type.constraints {
            switch constraint {
            case .mutuallyExclusive(let keys):
                let present = keys.filter(given)
                if present.count > 1 {
                    diagnostics.error(
                        "task '\(task.id.value)' (\(type.name)) sets \(present.map { "'\($0)'" }.joined(separator: " and ")), which exclude each other",
                        at: values.location(of: present[1]), hint: "keep one of: \(keys.joined(separator: ", "))")
                }
            case .oneRequired(let keys):
                if !keys.contains(where: given) {
                    diagnostics.error(
                        "task '\(task.id.value)' (\(type.name)) needs one of \(keys.map { "'\($0)'" }.joined(separator: ", "))",
                        at: task.id.location)
                }
            case .requires(let key, let others):
                guard given(key) else { continue }
                for other in others where !given(other) {
                    diagnostics.error(
                        "'\(key)' of task '\(task.id.value)' needs '\(other)' as well", at: values.location(of: key))
                }
            }
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

    private func check(
        _ value: Value, against spec: ParameterSpec, at location: SourceLocation, origin: String?,
        diagnostics: inout Diagnostics
    ) -> Value? {
        let what = "parameter '\(spec.name)' of task '\(task.id.value)' (\(type.name))"
        func fail(_ expected: String, hint: String? = nil) -> Value? {
            let found =
                value.typeName
                + (value.listValue == nil && value.mapValue == nil && value != .null ? " ('\(value)')" : "")
            diagnostics.error("\(what) must be \(expected), found \(found)", at: location, hint: hint ?? origin)
            return nil
        }
        switch spec.type {
        case .any:
            return value
        case .string:
            switch value {
            case .string, .int, .double, .bool: return .string(value.description)
            default: return fail("text")
            }
        case .bool:
            return value.boolValue != nil ? value : fail("true or false")
        case .number, .integer:
            let isInteger = spec.type == .integer
            guard let number = value.doubleValue, !isInteger || value.intValue != nil else {
                return fail(isInteger ? "a whole number" : "a number")
            }
            if let range = spec.range, !range.contains(number) {
                let bounds =
                    range.upperBound >= Double(Int.max)
                    ? "at least \(Value.double(range.lowerBound))"
                    : "between \(Value.double(range.lowerBound)) and \(Value.double(range.upperBound))"
                diagnostics.error("\(what) must be \(bounds), found \(value)", at: location, hint: origin)
                return nil
            }
            return value
        case .duration:
            if let text = value.stringValue, Duration.parse(workflowText: text) != nil { return value }
            if let seconds = value.doubleValue, seconds >= 0 { return value }
            return fail("a duration such as 250ms, 20s or 2m")
        case .oneOf(let options):
            guard let text = value.stringValue, options.contains(text) else {
                diagnostics.error(
                    "\(what) must be one of \(options.joined(separator: ", ")), found '\(value)'", at: location,
                    suggestion: Suggestion.closest(to: value.description, in: options), hint: origin)
                return nil
            }
            return value
        case .stringList:
            if case .string = value { return .list([value]) }
            guard let items = value.listValue, items.allSatisfy({ $0.listValue == nil && $0.mapValue == nil }) else {
                return fail("a list of text values")
            }
            return value
        case .stringMap:
            guard let map = value.mapValue, map.values.allSatisfy({ $0.listValue == nil && $0.mapValue == nil }) else {
                return fail("a map of text values")
            }
            return value
        }
    }
}
