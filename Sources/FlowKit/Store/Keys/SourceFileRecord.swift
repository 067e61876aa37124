/// The local file a source node read, as it was when read: its stamp and the SHA-256 of the bytes read.
///
/// A node's key names its source by stamp, which is cheap to check on every run. When the stamp is not the one
/// recorded — a fresh checkout gives every file new mtimes and inodes, `touch` a new mtime — the store reads the
/// file and compares its digest with this one: the same bytes keep the recorded key, so nothing downstream runs
/// (as the `write` check treats an output touched but unchanged).
package struct SourceFileRecord: Sendable, Equatable {
    /// The file's size, modification time and inode, from the descriptor it was read through, before the read.
    package var stamp: FileStamp
    /// SHA-256 of the bytes the node read.
    package var sha256: NodeKey

    /// Creates a record of a file read.
    package init(stamp: FileStamp, sha256: NodeKey) {
        self.stamp = stamp
        self.sha256 = sha256
    }
}

/// An operation that reads a local file as its source (`fetch` of a path) and says what it read, for the store
/// (``SourceFileRecord``).
package protocol SourceFileObserving: AnyObject {
    /// The file read, once the operation has read it whole; `nil` otherwise.
    var readSourceFile: SourceFileRecord? { get }
}
