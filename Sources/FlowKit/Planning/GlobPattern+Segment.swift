extension GlobPattern {
    /// One '/'-separated part of a pattern, braces already spelled out.
    enum Segment: Sendable, Hashable {
        /// `**`: any number of folders.
        case anyDepth
        /// A name without wildcards, compared as a whole.
        case literal(String)
        /// A name with wildcards.
        case wildcard([Token])

        /// One piece of a wildcard segment.
        enum Token: Sendable, Hashable {
            case scalar(Unicode.Scalar)
            /// `?`
            case one
            /// `*`
            case any
            /// `[a-z]`, `[!a-z]`
            case set([ClosedRange<Unicode.Scalar>], negated: Bool)
        }

        init(parsing text: Substring) throws(SyntaxError) {
            if text == "**" {
                self = .anyDepth
                return
            }
            let scalars = Array(text.unicodeScalars)
            var tokens: [Token] = []
            var index = 0
            var hasWildcard = false
            while index < scalars.count {
                switch scalars[index] {
                case "\\":
                    index += 1
                    guard index < scalars.count else { throw SyntaxError(message: "the pattern ends with '\\'") }
                    tokens.append(.scalar(scalars[index]))
                case "*":
                    hasWildcard = true
                    if tokens.last != .any { tokens.append(.any) }  // `**` inside a name is one `*`
                case "?":
                    hasWildcard = true
                    tokens.append(.one)
                case "[":
                    hasWildcard = true
                    let close = try GlobPattern.closingBracket(in: scalars, from: index)
                    tokens.append(Self.set(scalars[(index + 1)..<close]))
                    index = close
                default:
                    tokens.append(.scalar(scalars[index]))
                }
                index += 1
            }
            if hasWildcard {
                self = .wildcard(tokens)
            } else {
                var literal = String.UnicodeScalarView()
                for case .scalar(let scalar) in tokens { literal.append(scalar) }
                self = .literal(String(literal))
            }
        }

        /// The members of a bracket set, written between its brackets.
        private static func set(_ body: ArraySlice<Unicode.Scalar>) -> Token {
            var scalars = Array(body)
            let negated = scalars.first == "!" || scalars.first == "^"
            if negated { scalars.removeFirst() }
            var members: [Unicode.Scalar] = []
            var index = 0
            while index < scalars.count {
                if scalars[index] == "\\", index + 1 < scalars.count { index += 1 }
                members.append(scalars[index])
                index += 1
            }
            // A '-' between two members makes a range; at either end it is itself.
            var ranges: [ClosedRange<Unicode.Scalar>] = []
            index = 0
            while index < members.count {
                if index + 2 < members.count, members[index + 1] == "-", members[index] <= members[index + 2] {
                    ranges.append(members[index]...members[index + 2])
                    index += 3
                } else {
                    ranges.append(members[index]...members[index])
                    index += 1
                }
            }
            return .set(ranges, negated: negated)
        }

        /// Whether the segment names hidden entries: it starts with a literal '.'.
        var namesHidden: Bool {
            switch self {
            case .anyDepth: false
            case .literal(let name): name.hasPrefix(".")
            case .wildcard(let tokens): tokens.first == .scalar(".")
            }
        }

        /// Whether one path segment matches; `**` is the automaton's business, not this one's.
        func matches(_ name: Substring) -> Bool {
            switch self {
            case .anyDepth:
                return !name.hasPrefix(".")
            case .literal(let literal):
                return name == literal
            case .wildcard(let tokens):
                if name.hasPrefix("."), !namesHidden { return false }
                return Self.matches(name.unicodeScalars, tokens)
            }
        }

        /// Wildcard matching that backtracks only to the last `*`: linear in practice, quadratic at worst. Reads
        /// the name's scalars in place: a folder of 100,000 names is matched without an array made for each.
        private static func matches(_ name: Substring.UnicodeScalarView, _ tokens: [Token]) -> Bool {
            var nameIndex = name.startIndex
            var tokenIndex = 0
            var lastStar: (token: Int, name: Substring.UnicodeScalarView.Index)?
            while nameIndex < name.endIndex {
                if tokenIndex < tokens.count {
                    switch tokens[tokenIndex] {
                    case .any:
                        lastStar = (tokenIndex, nameIndex)
                        tokenIndex += 1
                        continue
                    case let token where token.matches(name[nameIndex]):
                        tokenIndex += 1
                        nameIndex = name.index(after: nameIndex)
                        continue
                    default:
                        break
                    }
                }
                guard let star = lastStar else { return false }
                let retried = name.index(after: star.name)
                lastStar = (star.token, retried)
                tokenIndex = star.token + 1
                nameIndex = retried
            }
            return tokens[tokenIndex...].allSatisfy { $0 == .any }
        }
    }
}

extension GlobPattern.Segment.Token {
    /// Whether this token, other than `*`, matches one character.
    fileprivate func matches(_ scalar: Unicode.Scalar) -> Bool {
        switch self {
        case .scalar(let expected): scalar == expected
        case .one: true
        case .any: false
        case .set(let ranges, let negated): ranges.contains { $0.contains(scalar) } != negated
        }
    }
}
