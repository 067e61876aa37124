/// A `${…}` reference inside a workflow value.
package enum Reference: Sendable, Hashable, CustomStringConvertible {
    /// `${params.NAME}`.
    case param(String)
    /// `${item}`.
    case item
    /// `${item.index}`.
    case itemIndex
    /// `${item.path}`, `${item.rel}`, `${item.dir}`, `${item.name}`, `${item.stem}`, `${item.ext}`: a part of a
    /// file item's path (a map item's own key of that name).
    case itemPart(ItemPart)
    /// `${item.KEY}` for map items.
    case itemKey(String)
    /// `${env.NAME}`.
    case env(String)
    /// `${inputs}`, `${input}` in a `command`'s `argv`: the files its dependencies wrote or read, known when it
    /// runs (``CommandTask``).
    case inputFiles(single: Bool)
    /// `${output.hash}`, `${output.hash:N}` in a `write`'s `path`: the first digits of the SHA-256 of the bytes
    /// written, known once they are encoded (``OutputHash``); `digits` is the text after the colon, as written.
    case outputHash(digits: String?)

    package var description: String {
        switch self {
        case .param(let name): "params.\(name)"
        case .item: "item"
        case .itemIndex: "item.index"
        case .itemPart(let part): "item.\(part.rawValue)"
        case .itemKey(let key): "item.\(key)"
        case .env(let name): "env.\(name)"
        case .inputFiles(let single): single ? "input" : "inputs"
        case .outputHash(let digits): digits.map { "output.hash:\($0)" } ?? "output.hash"
        }
    }

    /// Whether the reference needs a `forEach` item.
    package var needsItem: Bool {
        switch self {
        case .item, .itemIndex, .itemPart, .itemKey: true
        case .param, .env, .inputFiles, .outputHash: false
        }
    }
}

/// A part of a file item's path, as `${item.PART}` names it: for `photos/2024/basque/bridge.jpg` matched by
/// `photos/**/*.jpg`, `path` is all of it, `rel` is `2024/basque/bridge.jpg` (relative to the pattern's fixed
/// folder), `dir` is `2024/basque` (empty at the top), `name` is `bridge.jpg`, `stem` `bridge`, `ext` `jpg`.
package enum ItemPart: String, Sendable, Hashable, CaseIterable {
    case path, rel, dir, name, stem, ext
}

/// A string split into literal text and `${…}` references. `$${` writes a literal `${`.
package struct Interpolation: Sendable {
    /// One piece of an interpolated string.
    package enum Segment: Sendable {
        case text(String)
        case reference(Reference, SourceLocation)
    }

    /// The pieces, in order.
    package var segments: [Segment]

    /// The only reference, when the whole string is exactly one `${…}` (so the value keeps its type).
    package var wholeReference: (Reference, SourceLocation)? {
        guard segments.count == 1, case .reference(let reference, let location) = segments[0] else { return nil }
        return (reference, location)
    }

    /// Every reference, with its location.
    package var references: [(Reference, SourceLocation)] {
        segments.compactMap {
            if case .reference(let reference, let location) = $0 { return (reference, location) }
            return nil
        }
    }

    /// Splits text into segments.
    /// - Parameters:
    ///   - text: The scalar's text.
    ///   - location: Where the text starts; reference locations are offset from it.
    ///   - diagnostics: Where malformed references are reported.
    package init(parsing text: String, at location: SourceLocation, diagnostics: inout Diagnostics) {
        segments = []
        guard Self.mayReference(text) else {
            segments = [.text(text)]
            return
        }
        let scalars = Array(text.unicodeScalars)
        var literal = String.UnicodeScalarView()
        var index = 0
        func at(_ offset: Int) -> SourceLocation {
            var spot = location
            spot.column += offset
            return spot
        }
        while index < scalars.count {
            if scalars[index] == "$", index + 2 < scalars.count, scalars[index + 1] == "$", scalars[index + 2] == "{" {
                literal.append(contentsOf: ["$", "{"])
                index += 3
                continue
            }
            guard scalars[index] == "$", index + 1 < scalars.count, scalars[index + 1] == "{" else {
                literal.append(scalars[index])
                index += 1
                continue
            }
            guard let close = scalars[(index + 2)...].firstIndex(of: "}") else {
                diagnostics.error(
                    "unterminated '${' in '\(text)'", at: at(index),
                    hint: "close the reference with '}', or write '$${' for a literal '${'")
                return
            }
            if !literal.isEmpty {
                segments.append(.text(String(literal)))
                literal = String.UnicodeScalarView()
            }
            let body = String(String.UnicodeScalarView(scalars[(index + 2)..<close])).trimmingSpaces()
            if let reference = Interpolation.reference(named: String(body)) {
                segments.append(.reference(reference, at(index)))
            } else {
                diagnostics.error(
                    "unknown reference '${\(body)}'", at: at(index),
                    hint:
                        "references are ${params.NAME}, ${item}, ${item.index}, ${item.path}, ${item.rel}, ${item.dir}, ${item.name}, ${item.stem}, ${item.ext}, ${item.KEY} and ${env.NAME}"
                )
            }
            index = close + 1
        }
        if !literal.isEmpty || segments.isEmpty { segments.append(.text(String(literal))) }
    }

    /// Whether `text` holds a `${`, and so may hold a reference: its bytes scanned, where Foundation's
    /// `contains` would bridge every parameter value of every node to `NSString`.
    static func mayReference(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if previous == UInt8(ascii: "$") && byte == UInt8(ascii: "{") { return true }
            previous = byte
        }
        return false
    }

    private static func reference(named body: String) -> Reference? {
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let isName = { (name: String) in
            !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        }
        switch (parts.first, parts.count) {
        case ("item", 1): return .item
        case ("inputs", 1): return .inputFiles(single: false)
        case ("input", 1): return .inputFiles(single: true)
        case ("item", 2) where parts[1] == "index": return .itemIndex
        case ("item", 2) where ItemPart(rawValue: parts[1]) != nil:
            return ItemPart(rawValue: parts[1]).map(Reference.itemPart)
        case ("item", 2) where isName(parts[1]): return .itemKey(parts[1])
        case ("output", 2) where parts[1] == "hash": return .outputHash(digits: nil)
        case ("output", 2) where parts[1].hasPrefix("hash:"): return .outputHash(digits: String(parts[1].dropFirst(5)))
        case ("params", 2) where isName(parts[1]): return .param(parts[1])
        case ("env", 2) where isName(parts[1]): return .env(parts[1])
        default: return nil
        }
    }
}
