/// The shape HTTP gives a request header (RFC 9110 §5): checked once the values are resolved, because a
/// header taken from `${item}` can hold anything, and URLSession sends a name with CR/LF as a second header
/// and drops a value with one without a word.
enum HTTPHeaderField {
    /// Why the headers cannot be sent as written, or `nil` when every one can.
    static func problem(in headers: StringMap) -> String? {
        for (name, value) in headers {
            if !isToken(name) {
                return "the header name \(described(name)) is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"
            }
            if let bad = value.unicodeScalars.first(where: isForbiddenInValue) {
                return "the value of header '\(name)' holds \(described(bad)), which HTTP does not allow in a header"
            }
        }
        return nil
    }

    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                        || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
            }
    }

    /// Control characters but the horizontal tab: CR and LF would end the header, NUL and the rest are not
    /// field content.
    private static func isForbiddenInValue(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    /// The name in quotes, its control characters written as escapes.
    private static func described(_ name: String) -> String {
        let visible = name.unicodeScalars.map { scalar in
            switch scalar {
            case "\r": "\\r"
            case "\n": "\\n"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: "\\u{" + String(scalar.value, radix: 16) + "}"
            default: String(scalar)
            }
        }
        return "'" + visible.joined() + "'"
    }

    private static func described(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\r": "a carriage return (\\r)"
        case "\n": "a line feed (\\n)"
        default: "the control character U+" + String(scalar.value, radix: 16, uppercase: true)
        }
    }
}
