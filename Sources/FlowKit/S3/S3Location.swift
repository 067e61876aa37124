/// An object or prefix in a bucket, written `s3://bucket/key`.
package struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name.
    package var bucket: String
    /// The object's key (or a prefix), without a leading slash; empty for the whole bucket.
    package var key: String

    /// Creates a location from its parts.
    package init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// Parses `s3://bucket/key`; `nil` when `text` does not start with `s3://` (in any case) or names no bucket.
    package init?(_ text: String) {
        guard text.count > 5, text.prefix(5).lowercased() == "s3://" else { return nil }
        let rest = text.dropFirst(5)
        let bucket = rest.prefix { $0 != "/" }
        guard !bucket.isEmpty else { return nil }
        self.bucket = String(bucket)
        key = String(rest.dropFirst(bucket.count + 1))
    }

    /// Whether `text` is meant as an S3 location (`s3://…`), valid or not.
    package static func isS3(_ text: String) -> Bool {
        text.prefix(5).lowercased() == "s3://"
    }

    /// `s3://bucket/key`.
    package var description: String { "s3://\(bucket)/\(key)" }
}
