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
    /// The bytes up to and including the last `/` of the paths ``descriptor`` serves; empty before the first.
    private var folder: [UInt8] = []
    /// The open folder; -1 when it could not be opened.
    private var descriptor: Int32 = -1

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// What `stat(2)` says of `path`; `nil` where it fails.
    func status(of path: String) -> stat? {
        var info = stat()
        // On the path's C string, in place: the folder is compared and the name passed without a string made.
        let result = path.withCString { text -> Int32? in
            guard let found = strrchr(text, Int32(UInt8(ascii: "/"))), found[1] != 0 else { return nil }
            let slash = text.distance(to: found)
            let prefix = UnsafeRawBufferPointer(start: text, count: slash + 1)
            if !isOpen(prefix) { open(Array(prefix)) }
            guard descriptor >= 0 else { return nil }
            return fstatat(descriptor, text + slash + 1, &info, 0)
        }
        guard let result else { return stat(path, &info) == 0 ? info : nil }
        return result == 0 ? info : nil
    }

    /// The stamp of the regular file at `path` and when its inode last changed, as
    /// ``FileStamp/withChangeTime(path:)`` reads them; `nil` when there is none (missing, a folder, unreadable).
    func stamp(ofRegularFile path: String) -> (stamp: FileStamp, changed: Int64)? {
        status(of: path).flatMap(FileStamp.ofRegularFile)
    }

    /// Whether ``folder`` is `prefix`.
    private func isOpen(_ prefix: UnsafeRawBufferPointer) -> Bool {
        folder.count == prefix.count
            && folder.withUnsafeBytes { open in
                guard let start = open.baseAddress, let other = prefix.baseAddress else { return false }
                return memcmp(start, other, prefix.count) == 0
            }
    }

    private func open(_ prefix: [UInt8]) {
        if descriptor >= 0 { close(descriptor) }
        folder = prefix
        descriptor = Glibc.open(String(decoding: prefix, as: UTF8.self), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }
}
