import Crypto
import Foundation

/// `${output.hash}` (or `${output.hash:N}`) in a `write`'s path: the first N hex digits (8 unless given) of the
/// SHA-256 of the bytes written, so a file's name changes with its content (cache busting).
///
/// Planning leaves the placeholder in the path, as `${inputs}` is left in a command's `argv`: the name is only known
/// once the bytes are encoded. The store records the name written, which every later step reads — the up-to-date
/// check, the files served to the nodes after it, `clean --stale`.
package enum OutputHash {
    /// The digits taken when the placeholder gives none.
    package static let defaultDigits = 8
    /// The digits a placeholder may ask for: fewer would make collisions likely, a SHA-256 has no more.
    package static let digitRange = 4...64

    /// The opening of every placeholder, as planning leaves it in a resolved value.
    private static let opening = "${output.hash"

    /// The number of digits a placeholder's spelling after `output.hash` asks for (`nil`: none given, `":12"`:
    /// 12); `nil` for a spelling that is not a count in ``digitRange``.
    package static func digits(given: String?) -> Int? {
        guard let given else { return defaultDigits }
        guard let count = Int(given), digitRange.contains(count) else { return nil }
        return count
    }

    /// Whether a resolved value holds a placeholder: a path whose final name is decided by its content.
    package static func isPattern(_ path: String) -> Bool {
        Interpolation.mayReference(path) && path.contains(opening)
    }

    /// Where the first placeholder of a resolved path is, and how many digits it stands for; `nil` when it holds
    /// none (or one that validation refused).
    static func placeholder(in path: String) -> (range: Range<String.Index>, digits: Int)? {
        guard let start = path.range(of: opening),
            let close = path[start.upperBound...].firstIndex(of: "}")
        else { return nil }
        let rest = path[start.upperBound..<close]
        let given: String? = rest.isEmpty ? nil : rest.hasPrefix(":") ? String(rest.dropFirst()) : "-"
        guard let digits = digits(given: given) else { return nil }
        return (start.lowerBound..<path.index(after: close), digits)
    }

    /// The path with its placeholder replaced by the first digits of `digest`; the path itself when it holds none.
    package static func name(_ path: String, digest: SHA256Digest) -> String {
        guard let (range, digits) = placeholder(in: path) else { return path }
        return path.replacingCharacters(in: range, with: ContentDigest.hex(digest).prefix(digits))
    }

    /// Whether `name` is what `pattern` becomes for some content: the placeholder's place holds as many lowercase
    /// hex digits as it asks for, and the rest is the same.
    package static func matches(_ pattern: String, _ name: String) -> Bool {
        guard let (range, digits) = placeholder(in: pattern) else { return pattern == name }
        let prefix = pattern[..<range.lowerBound].utf8
        let suffix = pattern[range.upperBound...].utf8
        let bytes = name.utf8
        guard bytes.count == prefix.count + digits + suffix.count, bytes.starts(with: prefix),
            bytes.reversed().starts(with: suffix.reversed())
        else { return false }
        return bytes.dropFirst(prefix.count).prefix(digits).allSatisfy(isHexDigit)
    }

    /// The patterns among `produced` that could have made `name`: each run of as many hex digits as a
    /// placeholder of `spellings` asks for, put back as that placeholder.
    /// - Parameter spellings: The placeholders the patterns hold (`${output.hash}`, `${output.hash:12}`), each
    ///   with its count of digits.
    static func patterns(of name: String, spellings: [(text: String, digits: Int)]) -> [String] {
        let bytes = Array(name.utf8)
        var found: [String] = []
        for (text, digits) in spellings where bytes.count >= digits {
            for start in 0...(bytes.count - digits) where bytes[start..<(start + digits)].allSatisfy(isHexDigit) {
                let pattern =
                    String(decoding: bytes[..<start], as: UTF8.self) + text
                    + String(decoding: bytes[(start + digits)...], as: UTF8.self)
                found.append(pattern)
            }
        }
        return found
    }

    /// The placeholders that `patterns` hold, each spelling once with its count of digits.
    static func spellings(in patterns: some Sequence<String>) -> [(text: String, digits: Int)] {
        var seen: [String: Int] = [:]
        for pattern in patterns where isPattern(pattern) {
            guard let (range, digits) = placeholder(in: pattern) else { continue }
            seen[String(pattern[range])] = digits
        }
        return seen.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
