import FlowS3
import Foundation

/// `fetch` of an `s3://bucket/key` object: the download, and the object's version for the store.
///
/// The version is the object's `ETag`. A listing (a `forEach` glob over a bucket) learns it for every object
/// it lists (``S3ObjectVersions``), so an unchanged object is judged up to date with no request of its own;
/// an object no listing saw is asked with a HEAD before the run (``currentIdentity(of:)``), never downloaded.
enum S3Fetch {
    /// The identity the store keys an object by: its location and `ETag`.
    static func identity(of location: S3Location, etag: String) -> String {
        "s3 \(location) etag \(etag)"
    }

    /// The object's identity from a listing of this run, else one that must be asked for before the run.
    static func identity(of location: S3Location) -> SourceIdentity {
        if let etag = S3ObjectVersions.shared.etag(of: location) {
            return SourceIdentity(identity(of: location, etag: etag))
        }
        return .changing("s3 \(location)")
    }

    /// The object's identity now, from a HEAD request; `nil` when it cannot be told (the node then runs and
    /// reports why).
    static func currentIdentity(of location: S3Location) -> SourceIdentity? {
        guard let client = try? S3Client.environment.get(), let etag = try? client.etag(of: location) else {
            return nil
        }
        return SourceIdentity(identity(of: location, etag: etag))
    }

    /// Downloads the object on a thread of its own and calls `completion` once with the outcome and, on success,
    /// the identity of the version read.
    ///
    /// Not on a Dispatch global queue: the request blocks its thread until the session's delegate queue delivers
    /// the answer, and that queue runs on the same global threads, which libdispatch adds only slowly once all
    /// are blocked (16 waiting requests stalled each other for 10–20 s).
    static func start(
        _ location: S3Location, written: String, maxBytes: Int, context: NodeContext, cancellation: S3Cancellation,
        completion: @escaping @Sendable (FlowOperation.Outcome, String?) -> Void
    ) {
        Thread {
            let (outcome, version) = download(
                location, written: written, maxBytes: maxBytes, context: context, cancellation: cancellation)
            completion(outcome, version)
        }.start()
    }

    private static func download(
        _ location: S3Location, written: String, maxBytes: Int, context: NodeContext, cancellation: S3Cancellation
    ) -> (FlowOperation.Outcome, String?) {
        do throws(S3Error) {
            let object = try S3Client.environment.get().get(location, maxBytes: maxBytes, cancellation: cancellation)
            let version = object.etag.map { identity(of: location, etag: $0) }
            return (.success(DataPayload(object.bytes, source: written)), version)
        } catch {
            return (error.kind == .cancelled ? .cancelled : .failure(error.failure(context)), nil)
        }
    }
}

extension S3Error {
    /// This failure as the failure of a node.
    package func failure(_ context: NodeContext) -> NodeFailure {
        let code: NodeFailure.Code =
            switch kind {
            case .configuration: .invalidInput
            case .denied, .notFound, .service: .http
            case .network: .network
            case .tooLarge: .tooLarge
            case .cancelled: .cancelled
            }
        var failure = context.failure(code, message, cause: self)
        failure.httpStatus = status
        failure.isTransient = isTransient
        return failure
    }
}

extension S3Client {
    /// The client the environment and the AWS files configure, resolved once per process.
    package static let environment: Result<S3Client, S3Error> = Result { () throws(S3Error) in
        try S3Client.fromEnvironment()
    }
}
