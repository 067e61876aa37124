#if canImport(Glibc)
    import Glibc
#endif

/// A folder opened one component at a time, none of them followed if it is a symbolic link: what flowrun deletes
/// in, so that a folder that is (or became) a link never sends a removal to files elsewhere.
///
/// `open(2)`'s `O_NOFOLLOW` only looks at the last component; each component is therefore opened relative to the
/// one before (`openat`) with `O_NOFOLLOW | O_DIRECTORY`, so the folder reached is the one the path names,
/// whatever is swapped in while the walk goes on. What is done in it then goes through its descriptor
/// (`fstatat`, `openat`, `unlinkat`), never through the path again.
package final class LinkFreeFolder {
    /// Why a folder was not opened.
    package enum Refusal: Error, Equatable, Sendable {
        /// A component is missing: nothing is in the folder.
        case missing
        /// This prefix of the path is a symbolic link (or not a folder).
        case link(String)
        /// Another failure, with `errno`.
        case failed(Int32)
    }

    /// The open folder.
    package let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Opens `folder` (absolute, or relative to the working directory) without following a link in any of its
    /// components.
    package static func open(_ folder: String) -> Result<LinkFreeFolder, Refusal> {
        let absolute = folder.hasPrefix("/")
        var current = Glibc.open(absolute ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { return .failure(.failed(errno)) }
        var walked = absolute ? "" : "."
        for component in folder.split(separator: "/") where component != "." {
            walked += "/" + component
            let next = openat(current, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(current)
            guard next >= 0 else {
                switch code {
                case ENOENT: return .failure(.missing)
                // What `O_NOFOLLOW` answers for a link, and `O_DIRECTORY` for a file that is not a folder.
                case ELOOP, ENOTDIR: return .failure(.link(absolute ? walked : String(walked.dropFirst(2))))
                default: return .failure(.failed(code))
                }
            }
            current = next
        }
        return .success(LinkFreeFolder(descriptor: current))
    }

    /// What `lstat(2)` says of `name` in the folder; `nil` when it is not there.
    package func status(of name: String) -> stat? {
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    /// Opens the regular file `name` in the folder for reading, never through a link, never blocking on a FIFO.
    /// - Returns: The descriptor (the caller closes it), or `nil`.
    package func openRegularFile(_ name: String) -> Int32? {
        let file = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { return nil }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(file)
            return nil
        }
        return file
    }

    /// Removes the file `name` from the folder (`unlinkat`).
    /// - Returns: Whether it was removed, or was already gone.
    package func remove(_ name: String) -> Bool {
        unlinkat(descriptor, name, 0) == 0 || errno == ENOENT
    }
}
