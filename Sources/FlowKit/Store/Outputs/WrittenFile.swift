import Crypto
import Foundation

/// What an operation knows of the file it wrote, taken as it wrote it: the store records it as the node's output
/// without reading the file back.
package struct WrittenFile: Sendable {
    /// The path written, resolved against the workflow's folder (``NodeContext/resolvePath(_:)``).
    package var path: String
    /// The file's stamp once in place.
    package var stamp: FileStamp
    /// The SHA-256 of its bytes.
    package var sha256: SHA256Digest

    /// What a node wrote: `bytes`, now at `path` with `stamp`.
    package init(path: String, stamp: FileStamp, bytes: Data) {
        self.init(path: path, stamp: stamp, sha256: Self.digest(of: bytes))
    }

    /// What a node wrote: bytes whose digest is `sha256` (``digest(of:)``), now at `path` with `stamp`.
    package init(path: String, stamp: FileStamp, sha256: SHA256Digest) {
        self.path = path
        self.stamp = stamp
        self.sha256 = sha256
    }

    /// The SHA-256 of bytes about to be written.
    package static func digest(of bytes: Data) -> SHA256Digest {
        // Through the buffer: `SHA256.hash(data:)`, generic over the collection, costs more than the hash.
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize()
    }
}

/// An operation that says what it wrote (``WrittenFile``), once it finished.
package protocol WrittenFileObserving: AnyObject {
    /// The file the operation wrote; `nil` when it wrote none, or wrote where the store keeps no record (an
    /// object in a bucket).
    var writtenFile: WrittenFile? { get }
}
