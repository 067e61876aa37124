internal import CYAML

/// Parses YAML text into a tree of nodes with libyaml, keeping every node's line and column.
///
/// Beyond what libyaml checks, parsing rejects what a workflow file must never contain: duplicate keys,
/// non-scalar keys, several documents, and — so a hostile file cannot eat memory or the stack — aliases that
/// would expand past a node budget and nesting past a depth limit.
public enum YAMLDocument {
    /// Bounds on what a document may expand to.
    public struct Limits: Sendable {
        /// The deepest nesting of lists and maps accepted.
        public var maxDepth: Int
        /// How many nodes aliases may copy in, in total.
        public var maxAliasNodes: Int

        /// Creates limits.
        public init(maxDepth: Int = 128, maxAliasNodes: Int = 100_000) {
            self.maxDepth = maxDepth
            self.maxAliasNodes = maxAliasNodes
        }
    }

    /// Parses one YAML document.
    ///
    /// Duplicate and non-scalar keys are reported and parsing goes on (the first entry wins), so the
    /// validator still reports everything else; syntax errors, alias bombs and excessive nesting stop it.
    /// - Parameters:
    ///   - bytes: The file's bytes; must be UTF-8.
    ///   - path: The path to put in locations.
    ///   - limits: Depth and alias bounds.
    ///   - diagnostics: Where problems are reported.
    /// - Returns: The root node, or `nil` for an empty document or a fatal error.
    package static func parse(
        _ bytes: [UInt8], path: String, limits: Limits = Limits(), diagnostics: inout Diagnostics
    ) -> YAMLNode? {
        var aliases: [AliasUse] = []
        return parse(bytes, path: path, limits: limits, diagnostics: &diagnostics, aliases: &aliases)
    }

    /// Parses one YAML document, and lists where aliases were used, so a diagnostic about a value that came
    /// through an alias can point at the alias as well as at the text.
    static func parse(
        _ bytes: [UInt8], path: String, limits: Limits = Limits(), diagnostics: inout Diagnostics,
        aliases: inout [AliasUse]
    ) -> YAMLNode? {
        if let problem = UTF8Check.firstInvalidSequence(in: bytes, path: path) {
            diagnostics.error("the file is not valid UTF-8", at: problem, hint: "save the workflow as UTF-8 text")
            return nil
        }
        let parser = EventParser(bytes: bytes, path: path)
        var builder = TreeBuilder(path: path, limits: limits)
        do {
            while true {
                let event = try parser.next()
                if case .streamEnd = event { break }
                builder.eventEnd = parser.lastEnd
                try builder.consume(event)
            }
        } catch {
            diagnostics.append(contentsOf: builder.diagnostics)
            diagnostics.append(error)
            return nil
        }
        diagnostics.append(contentsOf: builder.diagnostics)
        aliases += builder.aliasUses
        return builder.root
    }
}

/// Finds the first byte sequence that is not UTF-8, with its line and column.
enum UTF8Check {
    static func firstInvalidSequence(in bytes: [UInt8], path: String) -> SourceLocation? {
        // Fast path: pure ASCII needs no decoding.
        if !bytes.contains(where: { $0 >= 0x80 }) { return nil }
        var iterator = bytes.makeIterator()
        var decoder = Unicode.UTF8()
        var line = 1
        var column = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            case .emptyInput:
                return nil
            case .error:
                return SourceLocation(path: path, line: line, column: column)
            }
        }
    }
}

/// One libyaml parser over a byte buffer it keeps alive; freed in `deinit` (Yams' `Parser` shape).
private final class EventParser {
    enum Event {
        case streamEnd
        case documentStart(SourceLocation)
        case documentEnd
        case scalar(String, YAMLNode.ScalarStyle, anchor: String?, SourceLocation)
        case sequenceStart(anchor: String?, SourceLocation)
        case sequenceEnd
        case mappingStart(anchor: String?, SourceLocation)
        case mappingEnd
        case alias(String, SourceLocation)
    }

    private var parser = yaml_parser_t()
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private let path: String
    private let bytes: [UInt8]
    /// Where the last event returned ends.
    private(set) var lastEnd: SourceLocation

    init(bytes: [UInt8], path: String) {
        lastEnd = SourceLocation(path: path, line: 1, column: 1)
        self.path = path
        self.bytes = bytes
        buffer = .allocate(capacity: max(bytes.count, 1))
        _ = buffer.initialize(from: bytes)
        yaml_parser_initialize(&parser)
        yaml_parser_set_input_string(&parser, buffer.baseAddress, bytes.count)
    }

    deinit {
        yaml_parser_delete(&parser)
        buffer.deallocate()
    }

    /// libyaml's marks are 0-based; locations are 1-based. Converted here and nowhere else.
    private func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(path: path, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    func next() throws(Diagnostic) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(&parser, &event) == 1 else { throw syntaxError() }
        defer { yaml_event_delete(&event) }
        let start = location(event.start_mark)
        lastEnd = location(event.end_mark)
        switch event.type {
        case YAML_STREAM_END_EVENT:
            return .streamEnd
        case YAML_DOCUMENT_START_EVENT:
            return .documentStart(start)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            let explicitString = scalar.tag.map { String(cString: $0).hasSuffix(":str") } ?? false
            let style: YAMLNode.ScalarStyle =
                scalar.style == YAML_PLAIN_SCALAR_STYLE && !explicitString ? .plain : .quoted
            return .scalar(text, style, anchor: scalar.anchor.map { String(cString: $0) }, start)
        case YAML_SEQUENCE_START_EVENT:
            return .sequenceStart(anchor: event.data.sequence_start.anchor.map { String(cString: $0) }, start)
        case YAML_SEQUENCE_END_EVENT:
            return .sequenceEnd
        case YAML_MAPPING_START_EVENT:
            return .mappingStart(anchor: event.data.mapping_start.anchor.map { String(cString: $0) }, start)
        case YAML_MAPPING_END_EVENT:
            return .mappingEnd
        case YAML_ALIAS_EVENT:
            return .alias(String(cString: event.data.alias.anchor), start)
        default:
            // STREAM_START and NO_EVENT carry nothing; read on.
            return try next()
        }
    }

    private func syntaxError() -> Diagnostic {
        let problem = parser.problem.map { String(cString: $0) } ?? "malformed YAML"
        let context = parser.context.map { String(cString: $0) }
        let at = location(parser.problem_mark)
        // libyaml says "found character that cannot start any token" for a tab; say what it is.
        if scalar(at: at) == "\t" || problem.contains("tab") {
            return .error(
                "invalid YAML: a tab character is used for indentation", at: at,
                hint: "indent with spaces; YAML does not allow tabs for indentation")
        }
        var message = "invalid YAML: \(problem)"
        if let context { message += " \(context)" }
        // The context mark is where the unfinished construct (an unclosed '[', a quoted string) began, which
        // is usually where the fix goes.
        var notes: [Diagnostic] = []
        let contextAt = location(parser.context_mark)
        if let context, contextAt != at, contextAt < at {
            var subject = context
            for prefix in ["while parsing ", "while scanning "] where subject.hasPrefix(prefix) {
                subject.removeFirst(prefix.count)
            }
            notes.append(.note("\(subject) starts here", at: contextAt))
        }
        // Inside `{ … }` or `[ … ]` an unquoted `${item}` opens a nested mapping: the commonest slip in the
        // one-line task form.
        var hint: String?
        if let context, context.contains("flow"), line(of: at)?.contains("${") == true {
            hint = "inside { … } or [ … ], put a value that contains ${…} in quotes: \"${item}\""
        }
        return .error(message, at: at, hint: hint, notes: notes)
    }

    /// The Unicode scalar at a location of the input, if any.
    private func scalar(at location: SourceLocation) -> Unicode.Scalar? {
        guard let text = line(of: location)?.unicodeScalars,
            location.column >= 1, location.column <= text.count
        else { return nil }
        return text[text.index(text.startIndex, offsetBy: location.column - 1)]
    }

    /// The text of a location's line, if the input has that line.
    private func line(of location: SourceLocation) -> String? {
        var line = 1
        var start = 0
        while line < location.line {
            guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            start = newline + 1
            line += 1
        }
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

/// Assembles events into a tree with an explicit stack, so deep nesting cannot overflow the call stack.
private struct TreeBuilder {
    // Open containers are classes so that adding an entry mutates them in place. As enum payloads of the
    // stack they were copied on every entry (popLast, bind, append, push back): quadratic in the size of a
    // map, 3 s for 10,000 tasks.
    private enum Container {
        case sequence(SequenceInProgress)
        case mapping(MappingInProgress)
    }

    private final class SequenceInProgress {
        var items: [YAMLNode] = []
        let anchor: String?
        let location: SourceLocation

        init(anchor: String?, location: SourceLocation) {
            self.anchor = anchor
            self.location = location
        }
    }

    private final class MappingInProgress {
        var pairs: [YAMLPair] = []
        // Where each key was first written: finds duplicates in O(1) for maps of thousands of tasks.
        var keyLocations: [String: SourceLocation] = [:]
        var pendingKey: YAMLNode?
        // Set after a rejected (non-scalar) key, so its value is dropped with it.
        var discardsNextValue = false
        var anchor: String?
        var location: SourceLocation
        // What this map's keys name, when known from where it stands (the map under top-level 'tasks' holds
        // task ids), so a duplicate is reported in the user's terms.
        var keyRole: String?
        // The values of `<<` merge keys, applied when the map ends so the map's own keys win wherever written.
        var merges: [YAMLNode] = []

        init(anchor: String?, location: SourceLocation) {
            self.anchor = anchor
            self.location = location
        }
    }

    private let path: String
    private let limits: YAMLDocument.Limits
    private var stack: [Container] = []
    private var anchors: [String: YAMLNode] = [:]
    /// Where each anchored node's text starts and ends.
    private var anchorRegions: [String: (start: SourceLocation, end: SourceLocation)] = [:]
    /// Where the event being consumed ends.
    var eventEnd: SourceLocation
    private(set) var aliasUses: [AliasUse] = []
    private var aliasNodes = 0
    private var documents = 0
    private(set) var root: YAMLNode?
    private(set) var diagnostics = Diagnostics()

    init(path: String, limits: YAMLDocument.Limits) {
        self.path = path
        self.limits = limits
        eventEnd = SourceLocation(path: path, line: 1, column: 1)
    }

    mutating func consume(_ event: EventParser.Event) throws(Diagnostic) {
        switch event {
        case .streamEnd, .documentEnd:
            break
        case .documentStart(let location):
            documents += 1
            if documents > 1 {
                throw .error(
                    "a workflow file holds one YAML document", at: location,
                    hint: "remove the '---' separator and everything after it, or split the file")
            }
        case .scalar(let text, let style, let anchor, let location):
            try add(YAMLNode(.scalar(text, style), at: location), anchor: anchor)
        case .sequenceStart(let anchor, let location):
            try push(.sequence(SequenceInProgress(anchor: anchor, location: location)), at: location)
        case .mappingStart(let anchor, let location):
            let mapping = MappingInProgress(anchor: anchor, location: location)
            if stack.count == 1, case .mapping(let parent) = stack[0] {
                mapping.keyRole = Self.keyRoles[parent.pendingKey?.scalar ?? ""]
            }
            try push(.mapping(mapping), at: location)
        case .sequenceEnd:
            guard case .sequence(let sequence)? = stack.popLast() else { return }
            try add(YAMLNode(.sequence(sequence.items), at: sequence.location), anchor: sequence.anchor)
        case .mappingEnd:
            guard case .mapping(let mapping)? = stack.popLast() else { return }
            for merge in mapping.merges { applyMerge(merge, into: mapping) }
            try add(YAMLNode(.mapping(mapping.pairs), at: mapping.location), anchor: mapping.anchor)
        case .alias(let name, let location):
            guard var node = anchors[name] else {
                throw .error(
                    "unknown alias '*\(name)'", at: location, hint: "define the anchor '&\(name)' before using it")
            }
            aliasNodes += node.nodeCount
            if aliasNodes > limits.maxAliasNodes {
                throw .error(
                    "aliases expand to more than \(limits.maxAliasNodes) nodes", at: location,
                    hint: "this looks like an alias bomb; write the values out or use fewer nested aliases")
            }
            if let region = anchorRegions[name] {
                aliasUses.append(AliasUse(name: name, start: region.start, end: region.end, use: location))
            }
            node.location = location
            try add(node, anchor: nil)
        }
    }

    /// YAML 1.1's merge key: `<<: *defaults` copies the entries of a map, `<<: [*a, *b]` of several.
    private static let mergeKey = "<<"

    /// Adds the entries of a `<<` value that the map does not have: its own keys win wherever they are
    /// written, and of several merged maps the earlier wins. Merged entries keep the locations of the text
    /// they were written in.
    private mutating func applyMerge(_ value: YAMLNode, into mapping: MappingInProgress) {
        let sources: [YAMLNode]
        switch value.content {
        case .mapping: sources = [value]
        case .sequence(let items): sources = items
        case .scalar: sources = [value]
        }
        for source in sources {
            guard let pairs = source.mapping else {
                diagnostics.error(
                    "the merge key '<<' takes a map or a list of maps, found \(source.kindName)", at: source.location,
                    hint: "merge an anchored map, as in '<<: *defaults' or '<<: [*base, *io]'")
                continue
            }
            for pair in pairs {
                let name = pair.key.scalar ?? ""
                guard mapping.keyLocations[name] == nil else { continue }
                mapping.keyLocations[name] = pair.key.location
                mapping.pairs.append(pair)
            }
        }
    }

    /// What the keys of the maps under each top-level key name.
    private static let keyRoles = ["tasks": "task id", "queues": "queue name", "params": "parameter name"]

    private mutating func push(_ container: Container, at location: SourceLocation) throws(Diagnostic) {
        if stack.count >= limits.maxDepth {
            throw .error(
                "nesting deeper than \(limits.maxDepth) levels", at: location,
                hint: "a workflow never needs this depth; check the file is the one you meant")
        }
        stack.append(container)
    }

    private mutating func add(_ node: YAMLNode, anchor: String?) throws(Diagnostic) {
        if let anchor {
            anchors[anchor] = node
            anchorRegions[anchor] = (node.location, eventEnd)
        }
        guard let top = stack.last else {
            root = node
            return
        }
        switch top {
        case .sequence(let sequence):
            sequence.items.append(node)
        case .mapping(let mapping):
            if mapping.discardsNextValue {
                mapping.discardsNextValue = false
            } else if let key = mapping.pendingKey {
                let name = key.scalar ?? ""
                if let first = mapping.keyLocations[name] {
                    let role = mapping.keyRole ?? "key"
                    diagnostics.error(
                        "duplicate \(role) '\(name)'", at: key.location,
                        hint: mapping.keyRole == nil
                            ? "each key may appear once in a map; merge the two entries"
                            : "each \(role) may appear once; rename one of the two or merge them",
                        notes: [.note("'\(name)' first defined here", at: first)])
                } else {
                    mapping.keyLocations[name] = key.location
                    if name == Self.mergeKey, case .scalar(_, .plain) = key.content {
                        mapping.merges.append(node)
                    } else {
                        mapping.pairs.append(YAMLPair(key: key, value: node))
                    }
                }
                mapping.pendingKey = nil
            } else if node.scalar == nil {
                diagnostics.error("map keys must be plain text, found \(node.kindName)", at: node.location)
                mapping.discardsNextValue = true
            } else {
                mapping.pendingKey = node
            }
        }
    }
}
