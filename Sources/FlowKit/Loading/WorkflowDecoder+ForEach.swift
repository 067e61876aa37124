extension WorkflowDecoder {
    /// The keys a `forEach:` map may have.
    static let forEachKeys = ["list", "key", "file", "glob", "from", "exclude", "ignoreCase"]

    mutating func decodeForEach(_ node: YAMLNode) -> ForEachSpec? {
        switch node.content {
        case .sequence(let items):
            return .list(items, node.location)
        case .scalar(let text, _) where text.contains("${"):
            return .reference(node)
        case .mapping(let pairs):
            // On a mistake the task stays expanded, over no items, so its `${item}` references are not also
            // reported as "outside a forEach".
            return decodeForEachMap(pairs, at: node.location) ?? .list([], node.location)
        default:
            reader.diagnostics.error(
                "'forEach' must be a list, a ${params.NAME} reference, { file: PATH }, { glob: PATTERN } or { from: TASK }, found \(node.kindName)",
                at: node.location)
            return .list([], node.location)
        }
    }

    private mutating func decodeForEachMap(_ pairs: [YAMLPair], at location: SourceLocation) -> ForEachSpec? {
        var file: Located<String>?
        var patterns: [Located<String>]?
        var list: ForEachSpec?
        var producer: Located<String>?
        var key: Located<String>?
        var excludes: [Located<String>] = []
        var ignoreCase = false
        var globOnly: [YAMLNode] = []
        var namesSource = false
        for pair in pairs {
            switch pair.key.scalar {
            case "file":
                file = reader.string(pair.value, "'forEach.file'")
                namesSource = true
            case "glob":
                patterns = decodePatterns(pair.value, "'forEach.glob'")
                namesSource = true
            case "list":
                namesSource = true
                switch pair.value.content {
                case .sequence(let items): list = .list(items, pair.value.location)
                case .scalar(let text, _) where text.contains("${"): list = .reference(pair.value)
                default:
                    reader.diagnostics.error(
                        "'forEach.list' must be a list or a ${params.NAME} reference, found \(pair.value.kindName)",
                        at: pair.value.location)
                    return nil
                }
            case "from":
                producer = reader.string(pair.value, "'forEach.from'")
                namesSource = true
            case "key":
                key = reader.string(pair.value, "'forEach.key'")
            case "exclude":
                excludes = decodePatterns(pair.value, "'forEach.exclude'")
                globOnly.append(pair.key)
            case "ignoreCase":
                ignoreCase = reader.bool(pair.value, "'forEach.ignoreCase'") ?? false
                globOnly.append(pair.key)
            default:
                reader.unknownKey(pair.key, in: "'forEach'", candidates: Self.forEachKeys)
                return nil
            }
        }
        if let producer {
            guard list == nil, file == nil, patterns == nil, globOnly.isEmpty else {
                reader.diagnostics.error(
                    "'forEach.from' goes with 'key' alone", at: location,
                    hint: "a list comes from one of 'list', 'file', 'glob' or 'from'")
                return nil
            }
            return .from(producer, key: key)
        }
        if let list {
            guard file == nil, patterns == nil, globOnly.isEmpty else {
                reader.diagnostics.error(
                    "'forEach.list' goes with 'key' alone", at: location,
                    hint: "a list comes from one of 'list', 'file' or 'glob'")
                return nil
            }
            switch list {
            case .list(let items, let at, _): return .list(items, at, key: key)
            case .reference(let node, _): return .reference(node, key: key)
            default: return nil
            }
        }
        if let key, file != nil || patterns != nil {
            reader.diagnostics.error(
                "'key' applies to 'forEach.list'; a file or glob item is known by its path", at: key.location)
            return nil
        }
        switch (file, patterns) {
        case (let file?, nil):
            for key in globOnly {
                reader.diagnostics.error(
                    "'\(key.scalar ?? "")' applies to 'forEach.glob', not to a file list", at: key.location)
            }
            return globOnly.isEmpty ? .file(file) : nil
        case (nil, let patterns?):
            return patterns.isEmpty
                ? nil
                : .glob(GlobSpec(patterns: patterns, excludes: excludes, ignoreCase: ignoreCase, location: location))
        case (.some, .some):
            reader.diagnostics.error(
                "'forEach' has both 'file' and 'glob'", at: location, hint: "a list comes from one of them")
            return nil
        case (nil, nil):
            if !namesSource {
                reader.diagnostics.error(
                    "'forEach' needs 'list', 'file', 'glob' or 'from'", at: location,
                    hint:
                        "forEach: { glob: \"photos/**/*.jpg\" }, { file: photos.txt }, { list: [...], key: name } or { from: TASK }"
                )
            }
            return nil
        }
    }

    /// One pattern, or a list of them.
    private mutating func decodePatterns(_ node: YAMLNode, _ what: String) -> [Located<String>] {
        if case .sequence(let items) = node.content {
            if items.isEmpty { reader.diagnostics.error("\(what) must hold at least one pattern", at: node.location) }
            return items.compactMap { reader.string($0, "each pattern of \(what)") }
        }
        return reader.string(node, what).map { [$0] } ?? []
    }
}
