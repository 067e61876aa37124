import Foundation

extension RunCause {
    /// Two source identities as what differs between them: `file photos/basque trip/a.jpg (size 1 → 2, mtime
    /// 2026-01-01T00:00:00.000000000Z → …)`. The subject — a path, which may hold spaces, or a URL — is said once;
    /// identities of different subjects or shapes are shown whole.
    static func difference(_ old: String?, _ new: String?) -> String {
        guard let old, let new, let before = SourceFields(old), let after = SourceFields(new),
            before.subject == after.subject, before.fields.map(\.name) == after.fields.map(\.name)
        else { return "\(old ?? "none") → \(new ?? "none")" }
        let changes = zip(before.fields, after.fields).filter { $0.value != $1.value }.map { old, new in
            "\(old.name) \(SourceFields.shown(old)) → \(SourceFields.shown(new))"
        }
        return before.subject + " (" + changes.joined(separator: ", ") + ")"
    }
}

/// A source identity (``SourceIdentity``) split into what it names and the fields that tell its versions apart:
/// `file PATH size N mtime N inode N`, `file PATH sha256 H`, `file PATH missing`, `url URL etag E`,
/// `url URL last-modified DATE`, `url URL sha256 H`. A file's fields are read from the end, since its path may
/// hold spaces; a URL holds none, and a `Last-Modified` date does.
private struct SourceFields {
    var subject: String
    var fields: [(name: String, value: String)]

    init?(_ identity: String) {
        let words = identity.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        switch words.first {
        case "file":
            var rest = words.dropFirst()
            var fields: [(String, String)] = []
            let tail = Array(rest.suffix(6))
            if rest.last == "missing" {
                fields = [("missing", "")]
                rest = rest.dropLast()
            } else if rest.count > 6, [tail[0], tail[2], tail[4]] == ["size", "mtime", "inode"] {
                fields = [(tail[0], tail[1]), (tail[2], tail[3]), (tail[4], tail[5])]
                rest = rest.dropLast(6)
            } else if rest.count > 2, rest.suffix(2).first == "sha256" {
                fields = [("sha256", rest.last ?? "")]
                rest = rest.dropLast(2)
            } else {
                return nil
            }
            subject = "file " + rest.joined(separator: " ")
            self.fields = fields
        case "url" where words.count >= 4:
            subject = "url " + words[1]
            fields = [(words[2], words[3...].joined(separator: " "))]
        default:
            return nil
        }
    }

    /// A field's value as people read it: a modification time as a UTC date to the nanosecond, not a count.
    static func shown(_ field: (name: String, value: String)) -> String {
        guard field.name == "mtime", let nanoseconds = Int64(field.value) else { return field.value }
        let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let seconds = remainder < 0 ? quotient - 1 : quotient
        let fraction = remainder < 0 ? remainder + 1_000_000_000 : remainder
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return field.value }
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), fraction)
    }
}
