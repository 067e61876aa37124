import Crypto
import Foundation

/// What identifies a file's version without reading it: size, modification time in nanoseconds and inode.
///
/// Equal stamps are taken as equal files (as Make, Ninja and Bazel do for sources); a different stamp sends
/// the store to the content's hash before it calls a file changed, so a touched but identical file still counts
/// as unchanged.
public struct FileStamp: Sendable, Hashable, CustomStringConvertible {
    /// The size in bytes.
    package var size: Int64
    /// The modification time, in nanoseconds since 1970.
    package var modified: Int64
    /// The inode number.
    package var inode: UInt64

    /// Creates a stamp.
    package init(size: Int64, modified: Int64, inode: UInt64) {
        self.size = size
        self.modified = modified
        self.inode = inode
    }

    /// The stamp of the regular file at `path`, or `nil` when there is none (missing, a folder, unreadable).
    package init?(path: String) {
        guard let (stamp, _) = Self.withChangeTime(path: path) else { return nil }
        self = stamp
    }

    /// The stamp of the regular file at `path` and when its inode last changed (its ctime, in nanoseconds), from
    /// one `stat`; `nil` as ``init(path:)``.
    package static func withChangeTime(path: String) -> (stamp: FileStamp, changed: Int64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return ofRegularFile(info)
    }

    /// The stamp and the change time of a file `stat` described; `nil` unless it is a regular file.
    static func ofRegularFile(_ info: stat) -> (stamp: FileStamp, changed: Int64)? {
        guard info.st_mode & S_IFMT == S_IFREG else { return nil }
        return (FileStamp(info), Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }

    /// The stamp of a file `stat` or `fstat` described.
    init(_ info: stat) {
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        inode = UInt64(info.st_ino)
    }

    /// The stamp as `size N mtime N inode N`.
    public var description: String { "size \(size) mtime \(modified) inode \(inode)" }
}

/// SHA-256 digests of files and bytes, as lowercase hex.
package enum ContentDigest {
    /// The digest of the regular file at `path`, read in chunks; `nil` when it cannot be read or is not a
    /// regular file (a FIFO would block the read).
    package static func ofFile(atPath path: String) -> String? {
        stampedFile(atPath: path).map { hex($0.sha256) }
    }

    /// The stamp and the digest of the regular file at `path`, from one open: the stamp is the opened file's
    /// (`fstat`), taken before its bytes are read, so it is never newer than the content it goes with. `nil` as
    /// ``ofFile(atPath:)``.
    package static func stampedFile(atPath path: String) -> (stamp: FileStamp, sha256: SHA256Digest)? {
        guard case .success(let opened) = RegularFile.open(path) else { return nil }
        let descriptor = opened.descriptor
        defer { close(descriptor) }
        return digest(ofOpen: descriptor).map { (FileStamp(opened.status), $0) }
    }

    /// The digest of what an open file holds from its offset to its end; `nil` when a read fails.
    package static func digest(ofOpen descriptor: Int32) -> SHA256Digest? {
        var hasher = SHA256()
        // One scratch buffer for the whole file (on the stack where it fits), not a `Data` per chunk.
        let complete = withUnsafeTemporaryAllocation(byteCount: chunkBytes, alignment: 16) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return count == 0 }
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
        }
        return complete ? hasher.finalize() : nil
    }

    /// How much of a file is hashed at a time.
    private static let chunkBytes = 64 << 10

    /// The digest of some bytes.
    package static func of(_ bytes: some DataProtocol) -> String {
        hex(SHA256.hash(data: bytes))
    }

    static func hex(_ digest: SHA256Digest) -> String {
        digest.withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: 2 * bytes.count) { buffer in
                for (offset, byte) in bytes.enumerated() {
                    buffer[2 * offset] = hexDigit(byte >> 4)
                    buffer[2 * offset + 1] = hexDigit(byte & 0xF)
                }
                return 2 * bytes.count
            }
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}

/// What a source node reads from outside the workflow, as it goes into the node's key.
public struct SourceIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The canonical text, e.g. `file /photos/a.jpg size 1200 mtime 1700000000123456789 inode 42`.
    public var description: String
    /// Whether the source cannot be checked before the run (an http(s) URL): it then counts as changed every run.
    public var changesEveryRun: Bool
    /// The local file identified by its stamp, as read: a stamp other than the recorded one sends the store to
    /// its content (``SourceFileRecord``). `nil` for every other source.
    package var stampedFile: (path: String, stamp: FileStamp)? {
        stamped.map { ($0.path, $0.stamp) }
    }
    private var stamped: Stamped?

    private struct Stamped: Sendable, Hashable {
        var path: String
        /// The path as the identity names it (``file(atPath:relativeTo:byContent:)``).
        var named: String
        var stamp: FileStamp
    }

    /// The identity of the same file with another stamp: the one a record holds (``SourceFileRecord``).
    package func withStamp(_ stamp: FileStamp) -> SourceIdentity? {
        guard let stamped else { return nil }
        var identity = Self.stamped(stamped.named, stamp)
        identity.stamped = Stamped(path: stamped.path, named: stamped.named, stamp: stamp)
        return identity
    }

    /// Creates an identity from its canonical text.
    public init(_ description: String) {
        self.description = description
        changesEveryRun = false
    }

    /// A source that cannot be checked before the run and so counts as changed on every run.
    public static func changing(_ description: String) -> SourceIdentity {
        var identity = SourceIdentity(description)
        identity.changesEveryRun = true
        return identity
    }

    /// A local file by path and stamp, or by path and content hash; a missing file is identified as missing
    /// (the node will run and fail, naming the file).
    ///
    /// The identity names the file by its path relative to `directory` (the workflow's folder) when it is inside
    /// it, so a checkout in another folder finds the same keys.
    public static func file(atPath path: String, relativeTo directory: String? = nil, byContent: Bool)
        -> SourceIdentity
    {
        file(atPath: path, relativeTo: directory, byContent: byContent) { FileStamp(path: $0) }
    }

    /// ``file(atPath:relativeTo:byContent:)``, the file's stamp read by `stamp` (read ahead, or through its
    /// folder's descriptor: ``UpToDate/FileStamps``).
    static func file(atPath path: String, relativeTo directory: String?, byContent: Bool, stamp: (String) -> FileStamp?)
        -> SourceIdentity
    {
        let named = directory.map { FilePaths.relative(path, to: $0) } ?? path
        if byContent, let digest = ContentDigest.ofFile(atPath: path) {
            return SourceIdentity("file \(named) sha256 \(digest)")
        }
        guard let stamp = stamp(path) else { return SourceIdentity("file \(named) missing") }
        var identity = stamped(named, stamp)
        identity.stamped = Stamped(path: path, named: named, stamp: stamp)
        return identity
    }

    /// A file named `named` with `stamp`, as a key reads it.
    private static func stamped(_ named: String, _ stamp: FileStamp) -> SourceIdentity {
        // The stamp's `description`, written into the one string (a source node's key reads one each run), its
        // room taken once: interpolation would grow it piece by piece.
        var text = "file "
        text.reserveCapacity(named.utf8.count + 80)
        text += named
        text += " size "
        text += String(stamp.size)
        text += " mtime "
        text += String(stamp.modified)
        text += " inode "
        text += String(stamp.inode)
        return SourceIdentity(text)
    }
}
