import Crypto
import Foundation

/// The key a node that runs every time is known by to its dependents (``UpToDate/keyedByOutput``): the SHA-256
/// of what it made, so a dependent's key changes exactly when the data it receives does (early cutoff).
enum OutputDigest {
    /// The digest of a node's output as a key: of the file it wrote (its recorded digest), of a command's
    /// standard output (its bytes, as `sha256sum` reads them), or of a value the store can keep (its blob's
    /// encoding); `nil` for an output of none of these, whose dependents then run every time.
    static func key(of value: (any Sendable)?, written output: OutputRecord?) -> NodeKey? {
        if let output { return NodeKey(hex: output.sha256) ?? NodeKey(SHA256.hash(data: Data(output.sha256.utf8))) }
        if let payload = value as? DataPayload {
            var hasher = SHA256()
            payload.bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            return NodeKey(hasher.finalize())
        }
        guard let storable = value as? any StorableOutput else { return nil }
        var writer = BlobWriter.hashing()
        writer.string(type(of: storable).storageTag)
        guard (try? storable.store(into: &writer)) != nil, let (hex, _) = try? writer.finish() else { return nil }
        return NodeKey(hex: hex)
    }

    /// A key of this run only, for an output that has no digest: what reads it runs.
    static func unrepeatable() -> NodeKey {
        NodeKey(SHA256.hash(data: Data("flowrun-unrepeatable-output \(UUID().uuidString)".utf8)))
    }
}
