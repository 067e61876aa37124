extension WorkflowDecoder {
    /// Reads `retryOn:`: a list of `any`, `transient`, `network`, `timeout` and `status: N` / `status: [N, …]`.
    mutating func decodeRetryRule(_ node: YAMLNode) -> RetryRule? {
        let entries: [YAMLNode]
        switch node.content {
        case .sequence(let items): entries = items
        case .scalar(let text, _) where !text.isEmpty: entries = [node]
        case .mapping: entries = [node]
        default:
            reader.diagnostics.error(
                "'retryOn' must be a list such as [transient, status: 404], found \(node.kindName)",
                at: node.location, hint: Self.retryOnHint)
            return nil
        }
        var conditions: [RetryRule.Condition] = []
        for entry in entries {
            if let condition = decodeRetryCondition(entry) { conditions.append(condition) }
        }
        return RetryRule(conditions)
    }

    private static let retryOnHint =
        "each entry is one of \(RetryRule.keywords.joined(separator: ", ")) or status: N (an HTTP status or a list of them)"

    private mutating func decodeRetryCondition(_ entry: YAMLNode) -> RetryRule.Condition? {
        if let pairs = entry.mapping {
            guard pairs.count == 1, pairs[0].key.scalar == "status" else {
                if let key = pairs.first?.key, key.scalar != "status" {
                    reader.unknownKey(key, in: "'retryOn'", candidates: ["status"])
                } else {
                    reader.diagnostics.error(
                        "each entry of 'retryOn' holds one condition", at: entry.location, hint: Self.retryOnHint)
                }
                return nil
            }
            let value = pairs[0].value
            let items = value.sequence ?? [value]
            let statuses = items.compactMap {
                reader.integer($0, "an HTTP status in 'retryOn'", atLeast: 100, atMost: 599)
            }
            return statuses.count == items.count ? .status(statuses) : nil
        }
        guard let word = reader.string(entry, "each entry of 'retryOn'") else { return nil }
        switch word.value {
        case "any": return .any
        case "transient": return .transient
        case "network": return .network
        case "timeout": return .timeout
        default:
            reader.diagnostics.error(
                "unknown retry condition '\(word.value)'", at: word.location,
                suggestion: Suggestion.closest(to: word.value, in: RetryRule.keywords), hint: Self.retryOnHint)
            return nil
        }
    }
}
