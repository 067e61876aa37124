import Crypto
import FlowS3
import Foundation

/// A store kept in a bucket (`--state-dir s3://bucket/prefix`), so shards on machines that share no filesystem
/// exchange their results through it.
///
/// Objects are immutable and S3 has no append and no lock, so the bucket holds only what never needs either:
/// - `PREFIX/journals/JOURNAL/SEGMENT.journal`: each run's own records (a journal file of its own, named by the
///   time it was uploaded and a random suffix), never written twice, never overwritten; `JOURNAL` is the local
///   journal's name (`NAME.yaml`, `NAME.yaml.shard-2-of-4`, `NAME.yaml.gather`);
/// - `PREFIX/blobs/SHA256`: content-addressed stored outputs, put only when absent;
/// - `PREFIX/shards/NAME.shard-K-of-N.json`: each shard's report, for the gather phase (the latest run's wins).
///
/// A run works on a local folder (``localDirectory``, under the user's cache folder, one per bucket and prefix):
/// it pulls the segments it has not seen (one paginated listing, then a GET per new segment), merges them into
/// the local journal in the order they were uploaded, fetches the blobs those records point at, runs on that
/// folder as on any store, and at its end — an interrupted one included — uploads its blobs and then its records
/// as a new segment (``publish(_:)``).
package struct BucketStore: Sendable {
    /// The bucket and the prefix of the store (no slash at either end).
    package let location: S3Location
    /// The local folder the run works on.
    package let localDirectory: String
    let client: S3Client
    /// Where a failure to upload is reported.
    let warn: @Sendable (String) -> Void
    /// The key segments are signed and checked with (``SegmentSigning``); `nil` signs and checks nothing.
    let signing: SegmentSigning?
    /// Whether runs upload nothing (`--cache-read-only`): they use what the bucket holds and keep their own
    /// results on this machine.
    package var readOnly = false

    /// Opens the store `url` (`s3://bucket/prefix`) with the client the environment configures.
    /// - Throws: ``SessionError/Code/storeUnavailable`` for a URL naming no bucket, S3 settings that do not
    ///   resolve, or a local folder that cannot be made.
    package init(_ url: String, warn: @escaping @Sendable (String) -> Void) throws(SessionError) {
        guard let parsed = S3Location(url) else {
            throw SessionError(
                .storeUnavailable, "--state-dir '\(url)' names no bucket (write s3://bucket/prefix); nothing was run")
        }
        let client: S3Client
        switch S3Client.environment {
        case .success(let resolved): client = resolved
        case .failure(let error):
            throw SessionError(.storeUnavailable, "cannot use the store \(url): \(error); nothing was run")
        }
        let prefix = parsed.key.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        location = S3Location(bucket: parsed.bucket, key: prefix)
        self.client = client
        self.warn = warn
        signing = try SegmentSigning.fromEnvironment()
        localDirectory = Self.localDirectory(for: location, endpoint: client.configuration.endpoint)
        do {
            try FileManager.default.createDirectory(
                atPath: localDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SessionError(
                .storeUnavailable,
                "cannot make the local folder \(localDirectory) of the store \(url): \(SessionError.reason(error))")
        }
    }

    /// Whether `stateDirectory` names a bucket rather than a folder.
    package static func isBucket(_ stateDirectory: String?) -> Bool {
        stateDirectory.map(S3Location.isS3) ?? false
    }

    /// `s3://bucket/prefix`, as messages name the store.
    package var url: String { location.key.isEmpty ? "s3://\(location.bucket)" : location.description }

    /// The object `name` under the store's prefix.
    func object(_ name: String) -> S3Location {
        S3Location(bucket: location.bucket, key: location.key.isEmpty ? name : location.key + "/" + name)
    }

    /// The local folder of a bucket's store: `flowrun/buckets/DIGEST` in `XDG_CACHE_HOME` (else `~/.cache`),
    /// named by a digest of the endpoint, bucket and prefix, so no text from the URL becomes a path.
    static func localDirectory(
        for location: S3Location, endpoint: URL?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let cache =
            environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory() + "/.cache"
        let identity = "\(endpoint?.absoluteString ?? "aws")\n\(location.bucket)\n\(location.key)"
        let digest = SHA256.hash(data: Data(identity.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return cache + "/flowrun/buckets/" + digest
    }

    /// Whether a name read from a listing can be a local file's: letters, digits, `.`, `_`, `-`, not starting
    /// with a dot.
    static func isPlainName(_ name: Substring) -> Bool {
        !name.isEmpty && name.first != "."
            && name.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D
            }
    }
}
