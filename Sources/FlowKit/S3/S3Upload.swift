import FlowS3
import Foundation

/// A `write` whose `path` is `s3://bucket/key`: the object is put whole, or in parts when large, and is
/// visible only once complete (S3 shows neither a partial PUT nor an uncompleted multipart upload).
package struct S3Upload: Sendable {
    /// Where the object goes.
    package let location: S3Location

    /// The upload a written path names: `nil` for a local path, a failure for an `s3://` text naming no object.
    package static func destination(_ path: String, context: NodeContext) -> Result<S3Upload, NodeFailure>? {
        guard S3Location.isS3(path) else { return nil }
        guard let location = S3Location(path), !location.key.isEmpty, !location.key.hasSuffix("/") else {
            return .failure(
                context.failure(.invalidInput, "'\(path)' names no object: write s3://bucket/key"))
        }
        if let problem = location.dotSegmentProblem { return .failure(context.failure(.invalidInput, problem)) }
        return .success(S3Upload(location: location))
    }

    /// Uploads `bytes` on a thread of its own (a blocked Dispatch thread would starve the session's delegate
    /// queue, see ``S3Fetch/start(_:written:maxBytes:context:cancellation:completion:)``); `completion` is called
    /// once with the outcome, a ``FileOutput`` whose path is the `s3://` location.
    package func start(
        _ bytes: Data, context: NodeContext, cancellation: S3Cancellation,
        completion: @escaping @Sendable (FlowOperation.Outcome) -> Void
    ) {
        let location = self.location
        Thread {
            do throws(S3Error) {
                let etag = try S3Client.environment.get().put(
                    bytes, at: location, contentType: Self.contentType(of: location.key), cancellation: cancellation)
                // For the store, which records the object by it (``S3Outputs``).
                if let etag { S3ObjectVersions.shared.record(etag, of: location) }
                completion(.success(FileOutput(path: location.description, byteCount: bytes.count)))
            } catch {
                completion(error.kind == .cancelled ? .cancelled : .failure(error.failure(context)))
            }
        }.start()
    }

    /// The media type of the image formats `write` makes, by extension; other objects get S3's default.
    static func contentType(of key: String) -> String? {
        switch key.split(separator: ".").last?.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        default: nil
        }
    }
}
