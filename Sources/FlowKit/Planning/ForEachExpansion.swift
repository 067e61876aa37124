import FlowBasics
import FlowS3
import Foundation

/// Reads the items of a `forEach`: an inline list, a list param, the lines of a file, or the matches of globs
/// (files, or objects in a bucket: ``S3Items``).
enum ForEachExpansion {
    /// The most nodes one workflow may expand to; bounds memory for hostile or mistaken lists.
    static let maxItems = 1_000_000

    static func items(
        of spec: ForEachSpec, task: TaskSpec, scope: Scope, directory: String, strict: Bool,
        diagnostics: inout Diagnostics
    ) -> [ForEachItem]? {
        var items: [ForEachItem]?
        switch spec {
        case .list(let nodes, _, let keyField):
            items = nodes.map { node in
                let value = Resolver.resolve(node, in: scope, diagnostics: &diagnostics)
                return ForEachItem(value: value, key: "", location: node.location)
            }
            items = keyed(items, by: keyField, diagnostics: &diagnostics)
        case .reference(let node, let keyField):
            let value = Resolver.resolve(node, in: scope, diagnostics: &diagnostics)
            switch value {
            case .list(let list):
                items = keyed(list.map { ForEachItem(value: $0, key: "") }, by: keyField, diagnostics: &diagnostics)
            case .null: items = nil  // the unknown reference was reported already
            default:
                diagnostics.error(
                    "'forEach' of task '\(task.id.value)' must be a list, but \(node.scalar ?? "it") is \(value.typeName)",
                    at: node.location, hint: "declare the param as a YAML list: photos: [a.jpg, b.jpg]")
                items = nil
            }
        case .file(let path):
            items = lines(of: interpolated(path, scope, &diagnostics), directory: directory, diagnostics: &diagnostics)
        case .glob(let glob):
            items = matches(of: glob, scope: scope, directory: directory, strict: strict, diagnostics: &diagnostics)
        case .from:
            return []  // known when the producer has run: the planner takes it from ValidationContext.runTimeItems
        }
        if let items, items.count > maxItems {
            diagnostics.error(
                "'forEach' of task '\(task.id.value)' has \(items.count) items; the limit is \(maxItems)",
                at: spec.location, hint: "split the work into several runs")
            return nil
        }
        guard let items, distinctKeys(items, task: task, at: spec.location, diagnostics: &diagnostics) else {
            return nil
        }
        return items
    }

    /// Items of a list with their keys: a map item's `key:` field, else the item's own canonical text.
    static func keyed(
        _ items: [ForEachItem]?, by field: Located<String>?, diagnostics: inout Diagnostics
    ) -> [ForEachItem]? {
        guard var items else { return nil }
        for index in items.indices {
            guard let field else {
                items[index].key = canonicalText(items[index].value)
                continue
            }
            guard case .map(let map) = items[index].value, let key = map[field.value], isScalar(key) else {
                diagnostics.error(
                    "item \(index) of the list has no '\(field.value)' to be known by: \(items[index].value)",
                    at: items[index].location ?? field.location,
                    hint: "'key: \(field.value)' names a field every map item has, with text or a number")
                return nil
            }
            items[index].key = key.description
        }
        return items
    }

    private static func isScalar(_ value: Value) -> Bool {
        switch value {
        case .string, .int, .double, .bool: true
        case .null, .list, .map: false
        }
    }

    /// A value's text with map keys sorted, so one item written two ways has one key.
    static func canonicalText(_ value: Value) -> String {
        switch value {
        case .list(let items): "[" + items.map(canonicalText).joined(separator: ", ") + "]"
        case .map(let map):
            "{" + map.keys.sorted().map { "\($0): \(canonicalText(map[$0] ?? .null))" }.joined(separator: ", ") + "}"
        default: value.description
        }
    }

    /// Whether no two items share a key; else an error at the second naming the first.
    static func distinctKeys(
        _ items: [ForEachItem], task: TaskSpec, at location: SourceLocation, diagnostics: inout Diagnostics
    ) -> Bool {
        var first: [String: Int] = [:]
        first.reserveCapacity(items.count)
        var distinct = true
        for (index, item) in items.enumerated() {
            guard let earlier = first.updateValue(index, forKey: item.key) else { continue }
            first[item.key] = earlier
            distinct = false
            diagnostics.error(
                "items \(earlier) and \(index) of the 'forEach' of task '\(task.id.value)' have one key '\(item.key)'",
                at: item.location ?? location,
                hint: "an item is known by its key across runs; give map items a distinct 'key:' field, or drop one",
                notes: [.note("item \(earlier) is here", at: items[earlier].location ?? location)])
        }
        return distinct
    }

    /// A `file:` or `glob:` path with its `${params.…}` / `${env.…}` references filled in.
    static func interpolated(_ text: Located<String>, _ scope: Scope, _ diagnostics: inout Diagnostics)
        -> Located<String>
    {
        guard text.value.contains("${") else { return text }
        let value = Resolver.resolve(
            YAMLNode(.scalar(text.value, .plain), at: text.location), in: scope, diagnostics: &diagnostics)
        return Located(value.description, at: text.location)
    }

    private static func resolved(_ path: String, in directory: String) -> String {
        path.hasPrefix("/") || directory == "." ? path : directory + "/" + path
    }

    private static func lines(of path: Located<String>, directory: String, diagnostics: inout Diagnostics)
        -> [ForEachItem]?
    {
        if S3Location.isS3(path.value) { return S3Items.lines(of: path, diagnostics: &diagnostics) }
        let full = resolved(path.value, in: directory)
        let bytes: [UInt8]
        switch DefinitionFile.read(full, limit: DefinitionFile.maxListBytes) {
        case .success(let read): bytes = read
        case .failure(let failure):
            diagnostics.error(
                "cannot read the forEach file '\(path.value)': \(failure.reason)", at: path.location,
                hint: failure.isMissing ? "paths are relative to the workflow file's folder; looked for '\(full)'" : nil
            )
            return nil
        }
        return listLines(bytes, of: path, file: full, diagnostics: &diagnostics)
    }

    /// The items of a list file's bytes: its lines (split on bytes, CRLF or LF: ``TextLines``), trimmed, without
    /// blank lines and `#` comments; `file` names the list in the items' locations. Items are counted as they are
    /// read, so a list past ``maxItems`` stops there and costs no more memory than the limit allows.
    static func listLines(
        _ bytes: some Collection<UInt8>, of path: Located<String>, file: String, diagnostics: inout Diagnostics
    ) -> [ForEachItem]? {
        var items: [ForEachItem] = []
        var overLimitAt: Int?
        do throws(TextLines.Fault) {
            try TextLines.forEach(in: bytes) { number, line in
                let entry = line.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !entry.isEmpty, !entry.hasPrefix("#") else { return true }
                guard items.count < maxItems else {
                    overLimitAt = number
                    return false
                }
                items.append(
                    ForEachItem(
                        value: .string(entry), key: entry, base: "",
                        location: SourceLocation(path: file, line: number, column: 1)))
                return true
            }
        } catch {
            diagnostics.error(
                "cannot read the forEach file '\(path.value)': \(error.message)",
                at: path.location, hint: "a list holds one item a line, in UTF-8")
            return nil
        }
        if let overLimitAt {
            diagnostics.error(
                "the forEach file '\(path.value)' has more than \(maxItems) items (line \(overLimitAt) is item "
                    + "\(maxItems + 1)); the limit is \(maxItems)",
                at: path.location, hint: "split the work into several runs")
            return nil
        }
        return items
    }

    private static func matches(
        of glob: GlobSpec, scope: Scope, directory: String, strict: Bool, diagnostics: inout Diagnostics
    ) -> [ForEachItem]? {
        let patterns = glob.patterns.map { interpolated($0, scope, &diagnostics) }
        let excluded = glob.excludes.map { interpolated($0, scope, &diagnostics) }
        if patterns.contains(where: { S3Location.isS3($0.value) }) {
            return S3Items.matches(
                of: patterns, excluding: excluded, ignoreCase: glob.ignoreCase, strict: strict, limit: maxItems,
                diagnostics: &diagnostics)
        }
        func read(_ texts: [Located<String>]) -> [(GlobPattern, Located<String>)]? {
            var patterns: [(GlobPattern, Located<String>)] = []
            var valid = true
            for text in texts {
                do {
                    patterns.append((try GlobPattern(text.value, ignoreCase: glob.ignoreCase), text))
                } catch {
                    diagnostics.error("cannot read the glob '\(text.value)': \(error.message)", at: text.location)
                    valid = false
                }
            }
            return valid ? patterns : nil
        }
        guard let includes = read(patterns), let excludes = read(excluded) else { return nil }
        let walker = GlobWalker(
            includes: includes.map(\.0), excludes: excludes.map(\.0), directory: directory, limit: maxItems)
        let (found, notes) = walker.walk()
        for note in notes {
            let message: String
            switch note {
            case .unreadable(let folder, let reason):
                message = "cannot read the folder '\(folder)' (\(reason)); its files are left out"
            case .linkOutside(let path):
                message = "'\(path)' is a symbolic link that leads outside the folder the glob names; it is left out"
            case .notUTF8(let folder):
                message = "a name in '\(folder)' is not UTF-8; it is left out"
            }
            diagnostics.append(Diagnostic(.warning, message, at: glob.location))
        }
        for (pattern, text) in includes where !found.contains(where: { pattern.matches($0.path) }) {
            let nearest = walker.nearestExistingFolder(of: pattern)
            let base = pattern.base.isEmpty ? "." : pattern.base
            let message =
                nearest == base
                ? "the glob '\(text.value)' matches no files in '\(base)'"
                : "the glob '\(text.value)' matches no files: '\(base)' does not exist; the nearest folder that does is '\(nearest)'"
            diagnostics.append(
                Diagnostic(
                    strict ? .error : .warning, message, at: text.location,
                    hint: "patterns are relative to the workflow file's folder; '**' matches any depth"))
        }
        return found.map { ForEachItem(value: .string($0.path), key: $0.path, base: $0.base) }
    }
}

/// One item of a `forEach` list, before it becomes nodes.
package struct ForEachItem: Sendable {
    /// What `${item}` is.
    package var value: Value
    /// What the item is known by across runs: its path, its text, or its map's `key:` field.
    package var key: String
    /// For a file item (a glob's match, a line of a file list): the folder `${item.rel}` is relative to.
    package var base: String?
    /// Where the item is written, when it has a place of its own (an inline item, a line of a list file).
    package var location: SourceLocation?
}
