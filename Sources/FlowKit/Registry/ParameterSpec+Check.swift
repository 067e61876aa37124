/// What is wrong with one value of a parameter, to be prefixed with the parameter and task it belongs to.
package struct ParameterProblem: Error, Sendable, Hashable {
    /// What the value must be and what it is: `must be between 0 and 1, found 2`.
    package var message: String
    /// The closest allowed value, for a did-you-mean.
    package var suggestion: String?
}

extension ParameterSpec {
    /// Checks one resolved value against the declared type and range.
    /// - Returns: The value in the form operations read (a scalar given for a text parameter becomes text, one
    ///   given for a list becomes a list of one), or what is wrong with it.
    package func check(_ value: Value) -> Result<Value, ParameterProblem> {
        func mismatch(_ expected: String) -> Result<Value, ParameterProblem> {
            let shown = value.listValue == nil && value.mapValue == nil && value != .null ? " ('\(value)')" : ""
            return .failure(ParameterProblem(message: "must be \(expected), found \(value.typeName)\(shown)"))
        }
        switch type {
        case .any:
            return .success(value)
        case .string:
            guard let text = String(parameter: value) else { return mismatch("text") }
            return .success(.string(text))
        case .bool:
            return value.boolValue != nil ? .success(value) : mismatch("true or false")
        case .number, .integer:
            let isInteger = type == .integer
            guard let number = value.doubleValue, !isInteger || value.intValue != nil else {
                return mismatch(isInteger ? "a whole number" : "a number")
            }
            if let range, !range.contains(number) {
                return .failure(ParameterProblem(message: "must be \(Self.describe(range)), found \(value)"))
            }
            return .success(value)
        case .duration:
            return Duration(parameter: value) != nil
                ? .success(value)
                : mismatch(
                    "a duration such as 250ms, 20s or 2m, at most \(Duration.longestInWorkflowText)")
        case .boolOr(let options):
            if value.boolValue != nil { return .success(value) }
            guard let text = value.stringValue, options.contains(text) else {
                let allowed = ["true", "false"] + options
                return .failure(
                    ParameterProblem(
                        message: "must be \(allowed.dropLast().joined(separator: ", ")) or \(allowed.last ?? ""), "
                            + "found '\(value)'",
                        suggestion: Suggestion.closest(to: value.description, in: allowed)))
            }
            return .success(value)
        case .oneOf(let options):
            guard let text = value.stringValue, options.contains(text) else {
                return .failure(
                    ParameterProblem(
                        message: "must be one of \(options.joined(separator: ", ")), found '\(value)'",
                        suggestion: Suggestion.closest(to: value.description, in: options)))
            }
            return .success(value)
        case .stringList:
            guard let items = [String](parameter: value) else { return mismatch("a list of text values") }
            return .success(value.listValue == nil ? .list(items.map(Value.string)) : value)
        case .stringMap:
            return StringMap(parameter: value) != nil ? .success(value) : mismatch("a map of text values")
        }
    }

    /// A range as messages and `flowrun tasks` say it: `between 0 and 1`, or `at least 1` when unbounded above.
    static func describe(_ range: ClosedRange<Double>) -> String {
        range.upperBound >= Double(Int.max)
            ? "at least \(Value.double(range.lowerBound))"
            : "between \(Value.double(range.lowerBound)) and \(Value.double(range.upperBound))"
    }
}

extension TaskType {
    /// Checks one node's resolved parameters as a whole, as the declaration says: required parameters present,
    /// the rules over several parameters, then the ``TaskParameters/validate(reading:into:)`` checks (only when
    /// every required parameter is there, as they may read any).
    /// - Parameters:
    ///   - values: The node's parameters after interpolation and the per-value ``ParameterSpec/check(_:)``, with
    ///     defaults filled in, the task's location and input kind set.
    ///   - task: The task's id, for messages.
    /// - Returns: Every problem found, located at the parameter (or the task, for a missing one).
    package func validate(parameters values: ParameterValues, task: String) -> [Diagnostic] {
        var diagnostics = Diagnostics()
        if checkNames(of: values, task: task, into: &diagnostics) {
            Parameters(values).validate(reading: values.inputKind, into: &diagnostics)
        }
        return diagnostics.all
    }

    /// The checks of ``validate(parameters:task:)`` that read which parameters a node has, not their values:
    /// required parameters present and the rules over several parameters.
    /// - Returns: Whether every required parameter is there.
    func checkNames(of values: ParameterValues, task: String, into diagnostics: inout Diagnostics) -> Bool {
        // Made only for a message: this runs for every node.
        func what() -> String { "task '\(task)' (\(name))" }
        var complete = true
        for spec in parameters where spec.isRequired && values[spec.name] == nil {
            complete = false
            // A value given but rejected was reported where it is written.
            guard !values.isGiven(spec.name) else { continue }
            diagnostics.error(
                "\(what()) is missing required parameter '\(spec.name)'", at: values.taskLocation,
                hint: "add '\(spec.name):' — \(spec.summary)")
        }
        let quoted = { (keys: [String]) in keys.map { "'\($0)'" } }
        for constraint in constraints {
            switch constraint {
            case .mutuallyExclusive(let keys):
                let present = keys.filter(values.isGiven)
                if present.count > 1 {
                    diagnostics.error(
                        "\(what()) sets \(quoted(present).joined(separator: " and ")), which exclude each other",
                        at: values.location(of: present[1]), hint: "keep one of: \(keys.joined(separator: ", "))")
                }
            case .oneRequired(let keys):
                if !keys.contains(where: values.isGiven) {
                    diagnostics.error(
                        "\(what()) needs one of \(quoted(keys).joined(separator: ", "))", at: values.taskLocation,
                        hint: "add one of: \(keys.joined(separator: ", "))")
                }
            case .requires(let key, let others):
                guard values.isGiven(key) else { continue }
                for other in others where !values.isGiven(other) {
                    diagnostics.error(
                        "'\(key)' of task '\(task)' needs '\(other)' as well", at: values.location(of: key),
                        hint: "add '\(other):', or remove '\(key):'")
                }
            }
        }
        return complete
    }
}
