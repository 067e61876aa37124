/// A shell-style pattern over '/'-separated paths, matched without touching a file system.
///
/// The syntax is what people write in shells and `.gitignore` files:
/// - `**` as a whole segment matches any number of folders, none included (`photos/**/*.jpg` matches
///   `photos/a.jpg` and `photos/2024/basque/a.jpg`);
/// - `*` matches any run of characters within one segment, `?` one character;
/// - `[abc]`, `[a-z]`, `[!a-z]` (or `[^a-z]`) one character of a set or outside it;
/// - `{jpg,png,webp}` any of the alternatives, which may hold wildcards, '/' and further braces;
/// - `\` makes the next character literal.
///
/// A segment that starts with '.' (a hidden file or folder) is matched only by a pattern segment that starts
/// with a literal '.': wildcards and `**` pass hidden names by, as shells and `.gitignore` do.
///
/// The pattern's ``base`` is its leading segments without wildcards — where a lister (a local folder walk, an
/// S3 prefix listing) starts; ``mayMatch(inside:)`` tells it which folders can hold matches, so it descends
/// only into those. With `ignoreCase`, the part after the base matches letters of either case; the base is a
/// place, named as written.
package struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    package let text: String
    /// Whether letters after the ``base`` match either case.
    package let ignoreCase: Bool
    /// The leading segments without wildcards, joined by '/' (`photos/2024` of `photos/2024/**/*.jpg`); empty
    /// when the first segment has one. Starts with '/' for an absolute pattern. The last segment of a pattern
    /// is never part of it: it names the files.
    package let base: String
    /// Every brace alternative spelled out, as segments; a path matches when one of them matches.
    let alternatives: [[Segment]]
    /// How many path segments the base takes (with the root of an absolute pattern as one).
    let baseSegmentCount: Int

    /// The most alternatives the braces of one pattern may spell out; bounds memory for `{a,b}{c,d}{…}…`.
    package static let maxAlternatives = 1_024

    /// A pattern that cannot be read, with what is wrong.
    package struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, for a diagnostic.
        package let message: String
        package var description: String { message }
    }

    /// Reads a pattern.
    /// - Parameters:
    ///   - text: The pattern; a leading `./` and repeated or trailing '/' are ignored.
    ///   - ignoreCase: Whether letters after the base match either case.
    /// - Throws: ``SyntaxError`` for an empty pattern, an unclosed `[` or `{`, a trailing `\`, or braces that
    ///   spell out more than ``maxAlternatives`` patterns.
    package init(_ text: String, ignoreCase: Bool = false) throws(SyntaxError) {
        self.text = text
        self.ignoreCase = ignoreCase
        let isAbsolute = text.hasPrefix("/")
        var segments = text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        while segments.first == ".", segments.count > 1 { segments.removeFirst() }
        guard !segments.isEmpty else { throw SyntaxError(message: "the pattern is empty") }
        let baseCount = segments.dropLast().prefix { !$0.contains(where: Self.specialCharacters.contains) }.count
        let baseSegments = segments.prefix(baseCount)
        base = (isAbsolute ? "/" : "") + baseSegments.joined(separator: "/")
        baseSegmentCount = (isAbsolute ? 1 : 0) + baseCount
        var rest = segments.dropFirst(baseCount).joined(separator: "/")
        if ignoreCase { rest = rest.lowercased() }
        let prefix: [Segment] = (isAbsolute ? [.literal("")] : []) + baseSegments.map { .literal($0) }
        alternatives = try Self.expandBraces(Array(rest.unicodeScalars)).map { alternative throws(SyntaxError) in
            let text = String(String.UnicodeScalarView(alternative))
            let parsed = try text.split(separator: "/", omittingEmptySubsequences: true).map {
                segment throws(SyntaxError) in try Segment(parsing: Substring(segment))
            }
            guard prefix.count + parsed.count < Position.maxSegments else {
                throw SyntaxError(message: "the pattern has more than \(Position.maxSegments - 1) segments")
            }
            return prefix + parsed
        }
    }

    package var description: String { text }

    /// Whether `path` ('/'-separated, as a lister names it: the base, then what it found below) matches.
    package func matches(_ path: String) -> Bool {
        accepts(position(after: pathSegments(path)))
    }

    /// Whether a folder may hold matches at some depth below it, so a lister must descend into it.
    ///
    /// `directory` is named as ``matches(_:)`` expects paths: the base, then the folders below it.
    package func mayMatch(inside directory: String) -> Bool {
        mayMatchBelow(position(after: pathSegments(directory)))
    }

    /// Whether a segment of the pattern after its base names a hidden file or folder (starts with '.'), so a
    /// lister must not skip hidden entries up front.
    package var namesHidden: Bool {
        alternatives.contains { $0.contains(where: \.namesHidden) }
    }

    private func pathSegments(_ path: String) -> [Substring] {
        let isAbsolute = path.hasPrefix("/")
        var segments = path.split(separator: "/", omittingEmptySubsequences: true)
        while segments.first == ".", segments.count > 1 { segments.removeFirst() }
        return isAbsolute ? [""] + segments : segments
    }

    private func position(after segments: [Substring]) -> Position {
        var position = start
        for segment in segments {
            position = self.position(position, after: segment)
            if position.isDead { break }
        }
        return position
    }

    // MARK: - Reading

    static let specialCharacters: Set<Character> = ["*", "?", "[", "{", "\\"]

    /// Spells out the braces of `scalars`: `a{b,c{d,e}}` → `ab`, `acd`, `ace`. Escapes and bracket sets are
    /// kept as written for the segment reader.
    private static func expandBraces(_ scalars: [Unicode.Scalar]) throws(SyntaxError) -> [[Unicode.Scalar]] {
        guard let open = try firstBrace(in: scalars) else { return [scalars] }
        var depth = 0
        var index = open
        var commas: [Int] = []
        var close: Int?
        while index < scalars.count {
            switch scalars[index] {
            case "\\": index += 1
            case "[": index = try closingBracket(in: scalars, from: index)
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth == 0 { close = index }
            case "," where depth == 1: commas.append(index)
            default: break
            }
            if close != nil { break }
            index += 1
        }
        guard let close else {
            throw SyntaxError(message: "'{' at character \(open + 1) is not closed by '}'")
        }
        let head = Array(scalars[..<open])
        let tail = try expandBraces(Array(scalars[(close + 1)...]))
        let bounds = [open] + commas + [close]
        var result: [[Unicode.Scalar]] = []
        for (start, end) in zip(bounds, bounds.dropFirst()) {
            for choice in try expandBraces(Array(scalars[(start + 1)..<end])) {
                for rest in tail {
                    result.append(head + choice + rest)
                    if result.count > maxAlternatives {
                        throw SyntaxError(message: "the braces spell out more than \(maxAlternatives) patterns")
                    }
                }
            }
        }
        return result
    }

    /// The index of the first '{' outside escapes and bracket sets.
    private static func firstBrace(in scalars: [Unicode.Scalar]) throws(SyntaxError) -> Int? {
        var index = 0
        while index < scalars.count {
            switch scalars[index] {
            case "\\": index += 1
            case "[": index = try closingBracket(in: scalars, from: index)
            case "{": return index
            default: break
            }
            index += 1
        }
        return nil
    }

    /// The index of the ']' that closes the set opening at `open`; a ']' right after `[`, `[!` or `[^` is a
    /// member, as in shells.
    static func closingBracket<C: Collection<Unicode.Scalar>>(in scalars: C, from open: C.Index) throws(SyntaxError)
        -> C.Index
    {
        var index = scalars.index(after: open)
        if index < scalars.endIndex, scalars[index] == "!" || scalars[index] == "^" {
            index = scalars.index(after: index)
        }
        if index < scalars.endIndex, scalars[index] == "]" { index = scalars.index(after: index) }
        while index < scalars.endIndex {
            switch scalars[index] {
            case "]": return index
            case "\\": index = scalars.index(after: index)
            case "/": throw SyntaxError(message: "a '[' set cannot hold '/'")
            default: break
            }
            if index < scalars.endIndex { index = scalars.index(after: index) }
        }
        throw SyntaxError(message: "'[' is not closed by ']'")
    }
}
