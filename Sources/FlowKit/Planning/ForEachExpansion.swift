import Foundation

/// Reads the items of a `forEach`: an inline list, a list param, the lines of a file, or a glob's matches.
enum ForEachExpansion {
    /// The most nodes one workflow may expand to; bounds memory for hostile or mistaken lists.
    static let maxItems = 1_000_000

    static func items(
        of spec: ForEachSpec, task: TaskSpec, scope: Scope, directory: String, diagnostics: inout Diagnostics
    ) -> [Value]? {
        let items: [Value]?
        switch spec {
        case .list(let nodes, _):
            items = nodes.map { Resolver.resolve($0, in: scope, diagnostics: &diagnostics) }
        case .reference(let node):
            let value = Resolver.resolve(node, in: scope, diagnostics: &diagnostics)
            switch value {
            case .list(let list): items = list
            case .null: items = nil  // the unknown reference was reported already
            default:
                diagnostics.error(
                    "'forEach' of task '\(task.id.value)' must be a list, but \(node.scalar ?? "it") is \(value.typeName)",
                    at: node.location, hint: "declare the param as a YAML list: photos: [a.jpg, b.jpg]")
                items = nil
            }
        case .file(let path):
            items = lines(of: interpolated(path, scope, &diagnostics), directory: directory, diagnostics: &diagnostics)
        case .glob(let pattern):
            items = matches(
                of: interpolated(pattern, scope, &diagnostics), directory: directory, diagnostics: &diagnostics)
        }
        if let items, items.count > maxItems {
            diagnostics.error(
                "'forEach' of task '\(task.id.value)' has \(items.count) items; the limit is \(maxItems)",
                at: spec.location, hint: "split the work into several runs")
            return nil
        }
        return items
    }

    /// A `file:` or `glob:` path with its `${params.…}` / `${env.…}` references filled in.
    private static func interpolated(_ text: Located<String>, _ scope: Scope, _ diagnostics: inout Diagnostics)
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

    private static func lines(of path: Located<String>, directory: String, diagnostics: inout Diagnostics) -> [Value]? {
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
        guard let text = String(validating: bytes, as: UTF8.self) else {
            diagnostics.error("the forEach file '\(path.value)' is not UTF-8 text", at: path.location)
            return nil
        }
        return text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map(Value.string)
    }

    private static func matches(of pattern: Located<String>, directory: String, diagnostics: inout Diagnostics)
        -> [Value]?
    {
        let full = resolved(pattern.value, in: directory)
        var result = glob_t()
        defer { globfree(&result) }
        let status = glob(full, 0, nil, &result)
        if status == GLOB_NOMATCH {
            diagnostics.append(
                Diagnostic(.warning, "the glob '\(pattern.value)' matches no files", at: pattern.location))
            return []
        }
        guard status == 0 else {
            diagnostics.error("cannot expand the glob '\(pattern.value)'", at: pattern.location)
            return nil
        }
        let prefix = pattern.value.hasPrefix("/") || directory == "." ? "" : directory + "/"
        var paths: [String] = []
        for index in 0..<Int(result.gl_pathc) {
            guard let cString = result.gl_pathv[index] else { continue }
            let path = String(cString: cString)
            paths.append(prefix.isEmpty || !path.hasPrefix(prefix) ? path : String(path.dropFirst(prefix.count)))
        }
        return paths.sorted().map(Value.string)
    }
}
