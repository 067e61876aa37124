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
        self.path = path
        self.stamp = stamp
        // Through the buffer: `SHA256.hash(data:)`, generic over the collection, costs more than the hash.
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        sha256 = hasher.finalize()
    }
}

/// An operation that says what it wrote (``WrittenFile``), once it finished.
package protocol WrittenFileObserving: AnyObject {
    /// The file the operation wrote; `nil` when it wrote none, or wrote where the store keeps no record (an
    /// object in a bucket).
    var writtenFile: WrittenFile? { get }
}
