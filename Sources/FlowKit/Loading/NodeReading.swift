/// Typed reads of YAML nodes that report a located error instead of failing silently.
struct NodeReader {
    var diagnostics = Diagnostics()

    mutating func mapping(_ node: YAMLNode, _ what: String) -> [YAMLPair]? {
        if let pairs = node.mapping { return pairs }
        diagnostics.error("\(what) must be a map, found \(node.kindName)", at: node.location)
        return nil
    }

    mutating func string(_ node: YAMLNode, _ what: String) -> Located<String>? {
        if let text = node.scalar, !text.isEmpty || node.isQuoted { return Located(text, at: node.location) }
        diagnostics.error("\(what) must be text, found \(node.kindName)", at: node.location)
        return nil
    }

    mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        if case .bool(let value) = node.value, !node.isQuoted { return value }
        // YAML 1.1 spellings that YAML 1.2 (and flowrun) read as text.
        let meant: String? =
            switch node.scalar?.lowercased() {
            case "yes", "y", "on": "true"
            case "no", "n", "off": "false"
            default: nil
            }
        diagnostics.error(
            "\(what) must be true or false, found \(node.describedValue)", at: node.location,
            suggestion: meant)
        return nil
    }

    mutating func integer(_ node: YAMLNode, _ what: String, atLeast minimum: Int, atMost maximum: Int = .max) -> Int? {
        guard case .int(let value) = node.value, !node.isQuoted else {
            diagnostics.error("\(what) must be a whole number, found \(node.describedValue)", at: node.location)
            return nil
        }
        guard value >= minimum, value <= maximum else {
            let bound = maximum == .max ? "at least \(minimum)" : "between \(minimum) and \(maximum)"
            diagnostics.error("\(what) must be \(bound), found \(value)", at: node.location)
            return nil
        }
        return value
    }

    mutating func duration(_ node: YAMLNode, _ what: String) -> Duration? {
        if let text = node.scalar, let duration = Duration.parse(workflowText: text) { return duration }
        if let text = node.scalar, Duration.seconds(workflowText: text) != nil {
            diagnostics.error(
                "\(what) must be at most \(Duration.longestInWorkflowText) (a year), found \(node.describedValue)",
                at: node.location)
            return nil
        }
        // A bare number has no unit; offer seconds, the likeliest meaning.
        let meant = node.scalar.flatMap { Double($0) != nil ? "\($0)s" : nil }
        diagnostics.error(
            "\(what) must be a duration such as 250ms, 20s or 2m, found \(node.describedValue)",
            at: node.location, suggestion: meant, hint: "write a number followed by ms, s, m or h")
        return nil
    }

    mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ node: YAMLNode, _ what: String, as: Choice.Type
    ) -> Choice? where Choice.RawValue == String {
        guard let text = node.scalar else {
            diagnostics.error(
                "\(what) must be one of \(Self.list(Choice.self)), found \(node.kindName)", at: node.location)
            return nil
        }
        if let choice = Choice(rawValue: text) { return choice }
        diagnostics.error(
            "\(what) must be one of \(Self.list(Choice.self)), found '\(text)'", at: node.location,
            suggestion: Suggestion.closest(to: text, in: Choice.allCases.map(\.rawValue)))
        return nil
    }

    /// Reports an unknown key; returns the did-you-mean candidate, if any, for error recovery.
    @discardableResult
    mutating func unknownKey(_ key: YAMLNode, in what: String, candidates: [String]) -> String? {
        let name = key.scalar ?? ""
        let suggestion = Suggestion.closest(to: name, in: candidates)
        diagnostics.error(
            "unknown key '\(name)' in \(what)", at: key.location, suggestion: suggestion,
            hint: "valid keys here: \(candidates.joined(separator: ", "))")
        return suggestion
    }

    private static func list<Choice: RawRepresentable & CaseIterable>(_: Choice.Type) -> String
    where Choice.RawValue == String {
        Choice.allCases.map(\.rawValue).joined(separator: ", ")
    }

    /// Reports a name that is not a valid identifier (task id, queue or parameter name).
    mutating func checkIdentifier(_ name: String, _ what: String, at location: SourceLocation) {
        guard !Self.isIdentifier(name) else { return }
        diagnostics.error(
            "invalid \(what) '\(name)'", at: location,
            hint: "\(what)s start with a letter or '_' and contain letters, digits, '_' or '-'")
    }

    /// Whether a name is a valid task or queue id: `[A-Za-z_][A-Za-z0-9_-]*`.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter || first == "_" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

extension YAMLNode {
    /// Whether the node is a quoted or block scalar (always a string).
    var isQuoted: Bool {
        if case .scalar(_, .quoted) = content { return true }
        return false
    }

    /// The node for messages: `'abc'` for scalars, its kind otherwise.
    var describedValue: String {
        if let text = scalar { return "'\(text)'" }
        return kindName
    }
}
