/// The objects a `forEach: { glob: "s3://bucket/photos/**/*.jpg" }` names, from one paginated listing of the
/// pattern's ``GlobPattern/base`` (never a request per object), matched with ``GlobPattern`` as files are. Each
/// listed object's `ETag` is kept for the store (``S3ObjectVersions``).
enum S3Glob {
    /// The matching objects as `s3://bucket/key`, in key order.
    static func matches(of pattern: GlobPattern, in bucket: String, client: S3Client) throws(S3Error) -> [String] {
        let prefix = pattern.base.isEmpty ? "" : pattern.base + "/"
        var found: [String] = []
        try client.list(bucket: bucket, prefix: prefix) {
            (page: [(key: String, etag: String, size: Int)]) throws(S3Error) in
            for object in page where pattern.matches(object.key) {
                let location = S3Location(bucket: bucket, key: object.key)
                S3ObjectVersions.shared.record(object.etag, of: location)
                found.append(location.description)
            }
        }
        return found
    }
}
