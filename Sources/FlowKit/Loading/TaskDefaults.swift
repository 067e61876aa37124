/// `defaults:` at the top level: task keys every task gets unless it sets them, and parameters per task type.
///
/// ```yaml
/// defaults:
///   queue: cpu
///   retries: 2
///   resize: { filter: bilinear }    # every resize task
/// ```
/// The entries keep the locations of the `defaults:` text, so a bad default is reported where it is written.
struct TaskDefaults {
    /// Defaults for every task.
    var common: [YAMLPair] = []
    /// Parameter defaults by task type name.
    var byType: [String: [YAMLPair]] = [:]

    /// A task's fields with the defaults it does not override appended: common ones, then its type's.
    func applied(to fields: [YAMLPair], type: String) -> [YAMLPair] {
        let extra = common + (byType[type] ?? [])
        guard !extra.isEmpty else { return fields }
        let own = Set(fields.compactMap(\.key.scalar))
        return fields + extra.filter { !own.contains($0.key.scalar ?? "") }
    }
}

extension WorkflowDecoder {
    /// Reads `defaults:`, reporting keys that are neither a task key a default may set nor a task type.
    mutating func decodeDefaults(_ node: YAMLNode) -> TaskDefaults {
        var defaults = TaskDefaults()
        guard let pairs = reader.mapping(node, "'defaults'") else { return defaults }
        for pair in pairs {
            let key = pair.key.scalar ?? ""
            if TaskKey.defaultable.contains(key) {
                defaults.common.append(pair)
            } else if let type = registry[key] {
                guard let parameters = reader.mapping(pair.value, "the defaults of '\(key)' tasks") else { continue }
                for parameter in parameters where type.parameter(named: parameter.key.scalar ?? "") == nil {
                    reader.unknownKey(
                        parameter.key, in: "the defaults of '\(key)' tasks", candidates: type.parameters.map(\.name))
                }
                defaults.byType[key] = parameters.filter { type.parameter(named: $0.key.scalar ?? "") != nil }
            } else {
                let suggestion = Suggestion.closest(to: key, in: TaskKey.defaultable + registry.names)
                reader.diagnostics.error(
                    "unknown key '\(key)' in 'defaults'", at: pair.key.location, suggestion: suggestion,
                    hint: Self.defaultsHint(key: key, registry: registry))
            }
        }
        return defaults
    }

    private static func defaultsHint(key: String, registry: TaskRegistry) -> String {
        if TaskKey.names.contains(key) {
            return "'\(key)' differs from task to task and has no default; set it on each task"
        }
        return "defaults take \(TaskKey.defaultable.joined(separator: ", ")), or a task type with its parameters"
            + " ({ resize: { filter: bilinear } })"
    }
}
