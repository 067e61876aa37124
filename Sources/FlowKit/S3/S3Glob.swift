/// The objects a `forEach: { glob: "s3://bucket/photos/**/*.jpg" }` names, from one paginated listing of the
/// pattern's literal prefix (never a request per object). Each listed object's `ETag` is kept for the store
/// (``S3ObjectVersions``).
///
/// The pattern language is `*` (any run of characters within one `/`-separated part), `?` (one such
/// character) and `**` (any run, `/` included, so `a/**/*.jpg` matches `a/x.jpg` and `a/b/c/x.jpg`).
enum S3Glob {
    /// The matching objects as `s3://bucket/key`, in key order.
    static func matches(of pattern: S3Location, client: S3Client) throws(S3Error) -> [String] {
        let prefix = String(pattern.key.prefix { !"*?[{".contains($0) })
        let wanted = Array(pattern.key.unicodeScalars)
        var found: [String] = []
        try client.list(bucket: pattern.bucket, prefix: prefix) { page throws(S3Error) in
            for object in page where matches(Array(object.key.unicodeScalars), wanted) {
                let location = S3Location(bucket: pattern.bucket, key: object.key)
                S3ObjectVersions.shared.record(object.etag, of: location)
                found.append(location.description)
            }
        }
        return found
    }

    /// Whether `name` matches `pattern` (the language above). Each (name position, pattern position) pair is
    /// tried at most once, so a pattern with many stars costs at most `name.count · pattern.count` steps.
    static func matches(_ name: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        var failed = Set<Int>()
        func match(_ i: Int, _ j: Int) -> Bool {
            let state = i * (pattern.count + 1) + j
            if failed.contains(state) { return false }
            let result: Bool
            if j == pattern.count {
                result = i == name.count
            } else if pattern[j] == "*" {
                let crossesSlash = j + 1 < pattern.count && pattern[j + 1] == "*"
                let rest = j + (crossesSlash ? 2 : 1)
                // `**/` also matches no folder at all; otherwise a star takes one more character or none.
                if crossesSlash, rest < pattern.count, pattern[rest] == "/", match(i, rest + 1) {
                    result = true
                } else if match(i, rest) {
                    result = true
                } else {
                    result = i < name.count && (crossesSlash || name[i] != "/") && match(i + 1, j)
                }
            } else {
                result =
                    i < name.count && (pattern[j] == "?" ? name[i] != "/" : pattern[j] == name[i])
                    && match(i + 1, j + 1)
            }
            if !result { failed.insert(state) }
            return result
        }
        return match(0, 0)
    }
}
