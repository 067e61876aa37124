extension Resolver {
    /// `${item.PART}`: a part of a file item's path, or a map item's own key of that name.
    ///
    /// For text items, `name` and `stem` are always one safe path component; `rel` and `dir` are checked here,
    /// when the plan is expanded, never to be absolute or to climb with `..` — so `out/${item.dir}/${item.name}`
    /// stays inside `out` whatever a list file holds.
    static func itemPart(
        _ part: ItemPart, of item: Scope.Item, at location: SourceLocation, diagnostics: inout Diagnostics
    ) -> Value? {
        if case .map(let map) = item.value {
            // A map's own field of that name is the map's data, as `${item.KEY}` is; only `stem`, which was
            // always a file name, is made safe.
            if let value = map[part.rawValue] { return part == .stem ? .string(safeName(value.description)) : value }
            if part == .stem { return .string(stem(of: item.value.description)) }
            diagnostics.error(
                "'${item.\(part.rawValue)}' names a key the forEach items do not have", at: location,
                hint: "path parts are read from text items; the items' keys are: \(map.keys.joined(separator: ", "))")
            return nil
        }
        let path = item.value.description
        switch part {
        case .path: return .string(path)
        case .rel: return contained(relative(path, to: item.base), part, item, location, &diagnostics)
        case .dir:
            let rel = relative(path, to: item.base)
            let folder = rel.lastIndex(of: "/").map { String(rel[..<$0]) } ?? ""
            return contained(folder, part, item, location, &diagnostics)
        case .name:
            return .string(safeName(String(lastComponent(of: path))))
        case .stem:
            return .string(stem(of: path))
        case .ext:
            let name = lastComponent(of: path)
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return .string("") }
            return .string(String(name[name.index(after: dot)...]))
        }
    }

    /// A path made relative to a glob's fixed folder; a path from anywhere else stays as it is.
    private static func relative(_ path: String, to base: String?) -> String {
        guard let base, !base.isEmpty else { return path }
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// `text` when it stays inside the folder it is put in; else an error at the reference.
    private static func contained(
        _ text: String, _ part: ItemPart, _ item: Scope.Item, _ location: SourceLocation,
        _ diagnostics: inout Diagnostics
    ) -> Value? {
        let normalised = FilePaths.normalised(text, in: ".")
        guard normalised.hasPrefix("/") || normalised == ".." || normalised.hasPrefix("../") else {
            return .string(text)
        }
        diagnostics.error(
            "'${item.\(part.rawValue)}' of the item '\(item.value.description)' climbs out of the folder it is put in",
            at: location,
            hint: "the item is an absolute path or names '..'; use ${item.name}, or list paths below the folder")
        return nil
    }
}

extension Resolver {
    /// ``stem(of:)`` of plain text — ASCII without `?`, `#` or `\`, as nearly every path a glob finds is — read
    /// in one pass over its bytes and one back over its last part, making only the stem; `nil` for other text,
    /// which the general reading takes. For such text it says what that reading says: the last non-empty
    /// `/`-separated part, without what follows its last `.` unless that dot starts it, made safe as
    /// ``safeName(_:)`` makes names.
    static func plainStem(of text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            let slash = UInt8(ascii: "/")
            guard
                !bytes.contains(where: {
                    $0 >= 0x80 || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "\\")
                })
            else { return nil }
            var end = bytes.count
            while end > 0, bytes[end - 1] == slash { end -= 1 }
            var start = end
            var dot: Int?
            while start > 0, bytes[start - 1] != slash {
                start -= 1
                if dot == nil, bytes[start] == UInt8(ascii: ".") { dot = start }
            }
            let stemEnd = dot.flatMap { $0 == start ? nil : $0 } ?? end
            let stem = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<stemEnd]), as: UTF8.self)
            // Names safeName changes: empty, `.`, `..` or starting with `..`.
            guard stem.isEmpty || stem.utf8.first == UInt8(ascii: ".") else { return stem }
            return safeName(stem)
        }
    }
}
