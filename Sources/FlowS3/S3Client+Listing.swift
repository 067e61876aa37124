import Foundation

extension S3Client {
    /// One object of a listing page (``list(bucket:prefix:maxPages:cancellation:page:)``).
    package struct ListedObject: Sendable, Equatable {
        /// The object's key, from the bucket's root.
        package var key: String
        /// The `ETag` as the server sent it (quoted).
        package var etag: String
        /// The object's size in bytes.
        package var size: Int
        /// When the object was written, as the server gives it; `nil` when it gives none or one not in ISO 8601.
        package var lastModified: Date?

        package init(key: String, etag: String, size: Int, lastModified: Date? = nil) {
            self.key = key
            self.etag = etag
            self.size = size
            self.lastModified = lastModified
        }

        /// A listing's `LastModified` (`2026-12-03T05:50:07.123Z`; S3 gives milliseconds, some servers none).
        static func date(_ text: String) -> Date? {
            (try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
                ?? (try? Date(text, strategy: .iso8601))
        }
    }

    /// Deletes an object; one that is not there is not an error (S3 answers 204 either way, some servers 404).
    /// - Parameter etag: Delete only while the object has this `ETag` (`If-Match`): a server that honours it
    ///   answers 412 for an object replaced since, which fails the call; one that ignores it deletes anyway.
    package func delete(_ location: S3Location, ifMatch etag: String? = nil, cancellation: S3Cancellation? = nil)
        throws(S3Error)
    {
        var call = Call(method: "DELETE", location: location, maxBytes: 64 << 10)
        if let etag { call.headers["if-match"] = etag }
        do throws(S3Error) {
            _ = try send(call, cancellation: cancellation)
        } catch  where error.kind == .notFound {
        }
    }
}
