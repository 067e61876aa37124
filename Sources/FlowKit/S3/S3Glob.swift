import FlowS3

/// The objects a `forEach` glob over a bucket names (`s3://bucket/photos/**/*.jpg`), from one paginated
/// listing of each pattern's ``GlobPattern/base`` (never a request per object), matched with ``GlobPattern`` as
/// files are. Each listed object's `ETag` is kept for the store (``S3ObjectVersions``).
struct S3Glob {
    /// One pattern: its bucket and the pattern of its keys.
    struct Pattern {
        var bucket: String
        var keys: GlobPattern

        /// Where `${item.rel}` of its matches starts: `s3://bucket/BASE`.
        var base: String { "s3://\(bucket)/\(keys.base)" }
    }

    var includes: [Pattern]
    var excludes: [Pattern]
    /// The most objects gathered before the listing stops.
    var limit: Int

    /// The objects that match an include and no exclude, as `s3://bucket/key` with the base of the first
    /// pattern that matched, in byte order, each object once; and the includes (by index) that matched none.
    func matches(client: S3Client) throws(S3Error) -> (objects: [(path: String, base: String)], unmatched: [Int]) {
        var found: [String: String] = [:]
        var unmatched: [Int] = []
        for (index, pattern) in includes.enumerated() {
            var matched = false
            let prefix = pattern.keys.base.isEmpty ? "" : pattern.keys.base + "/"
            try client.list(bucket: pattern.bucket, prefix: prefix) {
                (page: [S3Client.ListedObject]) throws(S3Error) in
                for object in page where pattern.keys.matches(object.key) {
                    let location = S3Location(bucket: pattern.bucket, key: object.key)
                    if excludes.contains(where: { $0.bucket == pattern.bucket && $0.keys.matches(object.key) }) {
                        continue
                    }
                    matched = true
                    S3ObjectVersions.shared.record(object.etag, of: location)
                    if found[location.description] == nil { found[location.description] = pattern.base }
                }
                if found.count > limit {
                    throw S3Error(
                        kind: .tooLarge, message: "the glob matches more than \(limit) objects", isTransient: false)
                }
            }
            if !matched { unmatched.append(index) }
        }
        let objects = found.map { (path: $0.key, base: $0.value) }
            .sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return (objects, unmatched)
    }
}
