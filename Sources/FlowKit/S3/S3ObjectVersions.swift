import FlowS3
import Synchronization

/// The `ETag` of every object a listing of this process saw, so a `fetch` of a listed object is judged up to
/// date without a request of its own. Holds one short string per listed object.
final class S3ObjectVersions: Sendable {
    static let shared = S3ObjectVersions()

    private let etags = Mutex<[S3Location: String]>([:])

    func record(_ etag: String, of location: S3Location) {
        etags.withLock { $0[location] = etag }
    }

    func etag(of location: S3Location) -> String? {
        etags.withLock { $0[location] }
    }
}
