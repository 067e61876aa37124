#if canImport(Glibc)
    import Glibc
#endif

/// `stat(2)` of many files, each through a descriptor of its folder (`fstatat`), so the kernel walks only the
/// file's name and not its whole path again: a rerun checks a source and an output for each of 100,000 items, all
/// in one or two folders.
///
/// It keeps the last folder it met open, and opens another when a path's folder differs. Where a folder cannot be
/// opened (`stat` needs only search permission on it, an open also read permission), or a path has no name after
/// its last `/`, it asks `stat` of the whole path, so the answer is always `stat`'s (links followed).
///
/// Not thread-safe: one belongs to one pass of decisions, and closes its folder when that drops it.
final class FolderStat {
    /// The text up to and including the last `/` of the paths ``descriptor`` serves.
    private var folder: String?
    /// The open folder; -1 when it could not be opened.
    private var descriptor: Int32 = -1

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// What `stat(2)` says of `path`; `nil` where it fails.
    func status(of path: String) -> stat? {
        var info = stat()
        let bytes = path.utf8
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), bytes.index(after: slash) != bytes.endIndex
        else { return stat(path, &info) == 0 ? info : nil }
        let prefix = path[...slash]
        if folder.map({ $0 != prefix }) ?? true { open(String(prefix)) }
        guard descriptor >= 0 else { return stat(path, &info) == 0 ? info : nil }
        let nameOffset = bytes.distance(from: bytes.startIndex, to: bytes.index(after: slash))
        let result = path.withCString { fstatat(descriptor, $0 + nameOffset, &info, 0) }
        return result == 0 ? info : nil
    }

    /// The stamp of the regular file at `path` and when its inode last changed, as
    /// ``FileStamp/withChangeTime(path:)`` reads them; `nil` when there is none (missing, a folder, unreadable).
    func stamp(ofRegularFile path: String) -> (stamp: FileStamp, changed: Int64)? {
        status(of: path).flatMap(FileStamp.ofRegularFile)
    }

    private func open(_ prefix: String) {
        if descriptor >= 0 { close(descriptor) }
        descriptor = Glibc.open(prefix, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        folder = prefix
    }
}
