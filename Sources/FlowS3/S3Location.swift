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
        guard Self.isS3(text), text.count > 5 else { return nil }
        let rest = text.dropFirst(5)
        let bucket = rest.prefix { $0 != "/" }
        guard !bucket.isEmpty else { return nil }
        self.bucket = String(bucket)
        key = String(rest.dropFirst(bucket.count + 1))
    }

    /// Whether `text` is meant as an S3 location (`s3://…`), valid or not.
    package static func isS3(_ text: String) -> Bool {
        // Told apart by the first byte, making no string, for all but `s…` paths: every path a run writes is asked.
        guard let first = text.utf8.first, first | 0x20 == UInt8(ascii: "s") else { return false }
        return text.prefix(5).lowercased() == "s3://"
    }

    /// `s3://bucket/key`.
    package var description: String { "s3://\(bucket)/\(key)" }

    /// Why no request can name this location as it is written, or `nil` when one can: a bucket `.` or `..`, or
    /// a key with a `.` or `..` segment (`in/../../other/x.txt`).
    ///
    /// S3 keeps such a key as it is, but HTTP clients resolve dot segments in a URL's path before sending it
    /// (libcurl, under `URLSession`, always does; RFC 3986 §5.2.4): the request would name another key, or
    /// another bucket, than the workflow does — and be signed for the path as written, so a server would take
    /// it for a wrong secret key. So such a location is refused rather than sent.
    package var dotSegmentProblem: String? {
        if bucket == "." || bucket == ".." {
            return "'\(self)' names the bucket '\(bucket)', which is no bucket's name"
        }
        let segments = key.split(separator: "/", omittingEmptySubsequences: false)
        guard let dots = segments.first(where: { $0 == "." || $0 == ".." }) else { return nil }
        return "the key of '\(self)' has a '\(dots)' segment, which HTTP would resolve into another key or bucket;"
            + " flowrun sends keys as written and refuses such a key (rename the object without '.' and '..' segments)"
    }
}
