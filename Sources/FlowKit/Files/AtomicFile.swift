import Foundation
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A file that appears complete or not at all: its bytes go to a temporary beside it (``WriteTemporaries``), which
/// ``commit(unless:)`` renames into place (`rename(2)` is atomic within a file system). Every failure, and a
/// cancellation just before the rename, removes the temporary; one that `kill -9` leaves is swept later.
///
/// flowrun replaces only regular files. A path that names anything else — a FIFO, a device, a socket, a folder, or a
/// symbolic link when ``SpecialFiles/refuse`` — is refused before anything is written, so no run ever renames over
/// `/dev/null` or a link. With ``SpecialFiles/streamInto`` (the command line's `--report`, `--trace`, `--html`), a
/// FIFO or character device, and a symbolic link to anything that can be written, are written into as they are, as
/// `tee` writes (`--trace /dev/stdout`), never replaced: only a regular file itself is replaced atomically.
package final class AtomicFile {
    /// What to do when the path exists and is not a regular file.
    package enum SpecialFiles: Sendable {
        /// Refuse it, and refuse a symbolic link too: workflow outputs, which never write through a link.
        case refuse
        /// Write into a FIFO, a character device or a symbolic link in place (a link to a regular file writes that
        /// file, truncated, or through this process's own stdout or stderr when it is that file); refuse other
        /// kinds.
        case streamInto
    }

    /// The final path.
    package let path: String
    private let descriptor: Int32
    /// The temporary's path; `nil` when writing into a FIFO, a device or a link in place.
    private let temporary: String?
    private let overwrite: Bool
    private var finished = false

    /// Opens a temporary beside `path` (or `path` itself, a FIFO or device with ``SpecialFiles/streamInto``).
    /// - Parameters:
    ///   - overwrite: Whether an existing file may be replaced; when `false`, `link(2)` moves the file into place
    ///     and fails rather than replace one that appeared meanwhile.
    ///   - createFolders: Whether missing folders of `path` are made (`mkdir -p`).
    package init(
        path: String, overwrite: Bool = true, createFolders: Bool = false, specialFiles: SpecialFiles = .refuse
    ) throws(FileWriteError) {
        self.path = path
        self.overwrite = overwrite
        let folder = FilePaths.folder(of: path)
        if createFolders { try Self.makeFolders(FilePath(folder), for: path) }
        var info = stat()
        if lstat(path, &info) == 0 {
            if !overwrite {
                throw FileWriteError(path: path, message: "'\(path)' already exists and overwrite is false")
            }
            if let device = try Self.specialFile(path, info, specialFiles) {
                descriptor = device
                temporary = nil
                return
            }
        }
        let created = try WriteTemporaries.create(for: FilePaths.name(of: path), in: folder)
        descriptor = created.descriptor
        temporary = created.path
    }

    deinit {
        if !finished { discard() }
    }

    /// `nil` for a regular file (or a link the rename replaces, with ``SpecialFiles/refuse`` never), an open
    /// descriptor for a FIFO, device or link written in place; throws for every other kind.
    private static func specialFile(_ path: String, _ info: stat, _ policy: SpecialFiles) throws(FileWriteError)
        -> Int32?
    {
        let kind = info.st_mode & S_IFMT
        if kind == S_IFREG { return nil }
        guard policy == .streamInto else {
            throw FileWriteError(
                path: path,
                message:
                    "cannot write '\(path)': it is \(RegularFile.describe(kind)), and flowrun replaces only regular files"
            )
        }
        var target = stat()
        if kind == S_IFLNK {
            // A link given on the command line is written into, as `tee` would: the link stays a link.
            if stat(path, &target) != 0 {
                guard errno == ENOENT else {
                    throw FileWriteError(
                        path: path, message: "cannot write '\(path)': \(String(cString: strerror(errno)))")
                }
                return try openInPlace(path, creating: true)
            }
        } else {
            target = info
        }
        let targetKind = target.st_mode & S_IFMT
        if kind == S_IFLNK, targetKind == S_IFREG {
            // `/dev/stdout` when the output goes to a file: the very file this process writes to, so its own
            // descriptor is used (its offset, and `>>`'s append), never a second one that truncates the file and
            // writes over what the process prints.
            if let stream = [STDOUT_FILENO, STDERR_FILENO].first(where: { isSameFile(target, $0) }) {
                let descriptor = fcntl(stream, F_DUPFD_CLOEXEC, 0)
                guard descriptor >= 0 else {
                    throw FileWriteError(
                        path: path, message: "cannot write '\(path)': \(String(cString: strerror(errno)))")
                }
                return descriptor
            }
            return try openInPlace(path, creating: false)
        }
        guard targetKind == S_IFIFO || targetKind == S_IFCHR else {
            throw FileWriteError(
                path: path,
                message: "cannot write '\(path)': it is \(RegularFile.describe(targetKind)), not a file or a stream")
        }
        return try openInPlace(path, creating: false)
    }

    /// Opens `path` for writing in place, following links; a FIFO nobody reads is an error (ENXIO), not a hang.
    private static func openInPlace(_ path: String, creating: Bool) throws(FileWriteError) -> Int32 {
        let flags = O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_TRUNC | (creating ? O_CREAT : 0)
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == ENXIO ? "no process reads the FIFO" : String(cString: strerror(errno))
            throw FileWriteError(path: path, message: "cannot write '\(path)': \(reason)")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }

    /// Whether the open descriptor `descriptor` is the file `info` describes.
    private static func isSameFile(_ info: stat, _ descriptor: Int32) -> Bool {
        var open = stat()
        return fstat(descriptor, &open) == 0 && FileIdentity(open) == FileIdentity(info)
    }

    /// Writes all of `bytes`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(FileWriteError) {
        var written = 0
        while written < bytes.count {
            let count = Foundation.write(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileWriteError(path: path, message: "cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            written += count
        }
    }

    /// Writes all of `data`.
    package func write(_ data: Data) throws(FileWriteError) {
        var failure: FileWriteError?
        data.withUnsafeBytes { bytes in
            do throws(FileWriteError) { try write(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// The stamp of what was written so far (`fstat`): the file's stamp once in place, as a rename or link keeps
    /// its inode, size and modification time. `nil` for a FIFO or device written in place.
    package func stamp() -> FileStamp? {
        var info = stat()
        guard temporary != nil, fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileStamp(info)
    }

    /// Closes the file and moves it into place, unless `isCancelled` says otherwise just before.
    /// - Returns: `false` when cancelled (the temporary is removed), `true` when the file is in place.
    @discardableResult
    package func commit(unless isCancelled: () -> Bool = { false }) throws(FileWriteError) -> Bool {
        guard let temporary else {
            finished = true
            guard close(descriptor) == 0 else {
                throw FileWriteError(path: path, message: "cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            return true
        }
        if isCancelled() {
            discard()
            return false
        }
        if overwrite {
            guard rename(temporary, path) == 0 else {
                let failure = FileWriteError(path: path, "cannot move it into place", errno: errno)
                discard()
                throw failure
            }
        } else {
            guard link(temporary, path) == 0 else {
                let code = errno
                discard()
                if code == EEXIST {
                    throw FileWriteError(path: path, message: "'\(path)' already exists and overwrite is false")
                }
                throw FileWriteError(path: path, "cannot move it into place", errno: code)
            }
            unlink(temporary)
        }
        finished = true
        // Closing drops the lock: only now may a sweep look at the name, and it is gone.
        close(descriptor)
        return true
    }

    /// Drops what was written: the temporary is removed (a FIFO or device keeps what it was sent).
    package func discard() {
        guard !finished else { return }
        finished = true
        if let temporary { unlink(temporary) }
        close(descriptor)
    }

    /// Creates `folder` and its parents, like `mkdir -p`.
    private static func makeFolders(_ folder: FilePath, for path: String) throws(FileWriteError) {
        var info = stat()
        if stat(folder.string, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return }
            throw FileWriteError(path: path, "cannot create folder '\(folder.string)'", errno: ENOTDIR)
        }
        let parent = folder.removingLastComponent()
        if !parent.isEmpty, parent != folder { try makeFolders(parent, for: path) }
        if mkdir(folder.string, 0o755) != 0, errno != EEXIST {
            throw FileWriteError(path: path, "cannot create folder '\(folder.string)'", errno: errno)
        }
    }
}
