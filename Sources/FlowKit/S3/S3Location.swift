/// An object or prefix in a bucket, written `s3://bucket/key`.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name.
    public var bucket: String
    /// The object's key (or a prefix), without a leading slash; empty for the whole bucket.
    public var key: String

    /// Creates a location from its parts.
    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// Parses `s3://bucket/key`; `nil` when `text` does not start with `s3://` (in any case) or names no bucket.
    public init?(_ text: String) {
        guard text.count > 5, text.prefix(5).lowercased() == "s3://" else { return nil }
        let rest = text.dropFirst(5)
        let bucket = rest.prefix { $0 != "/" }
        guard !bucket.isEmpty else { return nil }
        self.bucket = String(bucket)
        key = String(rest.dropFirst(bucket.count + 1))
    }

    /// Whether `text` is meant as an S3 location (`s3://…`), valid or not.
    public static func isS3(_ text: String) -> Bool {
        text.prefix(5).lowercased() == "s3://"
    }

    /// `s3://bucket/key`.
    public var description: String { "s3://\(bucket)/\(key)" }
}
