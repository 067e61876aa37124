import OrderedCollections

/// Checks every `${…}` in task parameters and `forEach`: known params and environment variables, item
/// references only in tasks that run per item.
struct ReferenceValidator: WorkflowValidator {
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics) {
        let expanded = context.expandedTasks()
        for (index, task) in context.workflow.tasks.enumerated() {
            // The params a task sees: its group's own, by their names inside the pipeline.
            let prefix = task.group.map { "\($0)." } ?? ""
            let params = context.workflow.params.keys.filter { $0.hasPrefix(prefix) }
                .map { String($0.dropFirst(prefix.count)) }.filter { !$0.contains(".") }
            var nodes = task.parameters.map { (node: $0.value.value, key: Optional($0.key)) }
            if case .reference(let node, _)? = task.forEach { nodes.append((node, nil)) }
            for path in task.forEach?.paths ?? [] {
                nodes.append((YAMLNode(.scalar(path.value, .plain), at: path.location), nil))
            }
            let inForEach = expanded[index]
            for (node, key) in nodes {
                var hashes = 0
                for (reference, location) in ReferenceScanner.references(in: node, diagnostics: &diagnostics) {
                    switch reference {
                    case .outputHash(let digits):
                        hashes += 1
                        checkOutputHash(
                            digits, in: task, key: key, node: node, count: hashes, at: location,
                            diagnostics: &diagnostics)
                    case .param(let name) where context.workflow.params[task.paramName(name)] == nil:
                        diagnostics.error(
                            "unknown parameter '${params.\(name)}'", at: location,
                            suggestion: Suggestion.closest(to: name, in: params).map { "${params.\($0)}" },
                            hint: params.isEmpty
                                ? "declare it under 'params:'" : "declared params: \(params.joined(separator: ", "))")
                    case .env(let name) where context.environment[name] == nil:
                        diagnostics.error(
                            "environment variable '\(name)' is not set", at: location,
                            suggestion: Suggestion.closest(to: name, in: context.environment.keys).map {
                                "${env.\($0)}"
                            },
                            hint: "set it before running (\(name)=… flowrun …), or use a param instead")
                    case .inputFiles where task.type.value != CommandTask().name:
                        diagnostics.error(
                            "'${\(reference)}' is only known to a 'command' task, in its 'argv'", at: location,
                            hint: "a command's argv gets one argument per file its dependencies wrote or read")
                    case let item where item.needsItem && !inForEach:
                        diagnostics.error(
                            "'${\(item)}' is used outside a forEach", at: location,
                            hint:
                                "task '\(task.id.value)' runs once; add 'forEach:' to it or depend on a task that has one"
                        )
                    default:
                        break
                    }
                }
            }
        }
    }
}

extension ReferenceValidator {
    /// `${output.hash}` only in a `write`'s `path`, once, as a plain string, with a count of digits it can give
    /// (a path in a bucket is refused by `write`'s own check, which sees it resolved).
    private func checkOutputHash(
        _ digits: String?, in task: TaskSpec, key: String?, node: YAMLNode, count: Int, at location: SourceLocation,
        diagnostics: inout Diagnostics
    ) {
        let spelling = "${\(Reference.outputHash(digits: digits))}"
        guard task.type.value == "write", key == "path", node.scalar != nil else {
            diagnostics.error(
                "'\(spelling)' is only known to a 'write' task, in its 'path'", at: location,
                hint: "the hash is of the bytes a write encodes, which name the file it writes")
            return
        }
        guard count == 1 else {
            diagnostics.error(
                "write's path names '\(spelling)' more than once", at: location,
                hint: "one ${output.hash} names the file by its content; a second one adds nothing")
            return
        }
        guard OutputHash.digits(given: digits) != nil else {
            let range = OutputHash.digitRange
            diagnostics.error(
                "'\(spelling)' asks for \(digits.map { "'\($0)'" } ?? "no") hex digits of the content's SHA-256",
                at: location,
                hint:
                    "give a count from \(range.lowerBound) to \(range.upperBound), as ${output.hash:12}, or "
                    + "${output.hash} for \(OutputHash.defaultDigits)")
            return
        }
    }
}

/// Finds the `${…}` references in a node and its children.
enum ReferenceScanner {
    static func references(in node: YAMLNode, diagnostics: inout Diagnostics) -> [(Reference, SourceLocation)] {
        switch node.content {
        case .scalar(let text, let style):
            return Interpolation(parsing: text, at: node.textStart(style), diagnostics: &diagnostics).references
        case .sequence(let items):
            return items.flatMap { references(in: $0, diagnostics: &diagnostics) }
        case .mapping(let pairs):
            return pairs.flatMap { references(in: $0.value, diagnostics: &diagnostics) }
        }
    }
}

extension YAMLNode {
    /// Where a scalar's text starts: one column after the opening quote of a quoted scalar.
    func textStart(_ style: ScalarStyle) -> SourceLocation {
        var start = location
        if style == .quoted { start.column += 1 }
        return start
    }
}
