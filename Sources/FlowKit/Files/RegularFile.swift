#if canImport(Glibc)
    import Glibc
#endif

/// Opening a file flowrun reads or owns only when it is a regular file: a FIFO blocks a reader forever (and
/// ignores cancellation while it does), a device is endless, and a symbolic link planted in the store would make
/// flowrun write through it. The one place that opens such files, so the rule holds for every one of them.
package enum RegularFile {
    /// Why a file was refused, in words that follow "cannot read 'x': ".
    package struct Failure: Error, Sendable {
        /// The reason, such as "no such file" or "it is a FIFO, not a regular file".
        package let reason: String
        /// The `errno` of a failed `open`, `EISDIR` for a folder, or 0 when the file was opened and refused.
        package let code: Int32

        /// Whether the file does not exist.
        package var isMissing: Bool { code == ENOENT }
        /// Whether the path is a folder.
        package var isFolder: Bool { code == EISDIR }
    }

    /// A regular file opened and checked, with what `fstat` said of it then.
    package struct Opened {
        /// The open descriptor; the caller closes it.
        package let descriptor: Int32
        /// The file's status when it was checked: its size, stamp and owner, without asking again.
        package let status: stat
    }

    /// Opens `path` and checks what was opened: a regular file, and, for the store, not reached through a
    /// symbolic link and owned by this user. Opening does not block, so a FIFO is refused rather than waited on.
    /// - Parameters:
    ///   - flags: `O_RDONLY`, `O_WRONLY | O_CREAT`, …; `O_CLOEXEC` and `O_NONBLOCK` are added.
    ///   - mode: The permissions of a file `O_CREAT` makes.
    ///   - owned: Refuse a symbolic link as the last component (`O_NOFOLLOW`) and a file another user owns.
    /// - Returns: The open file (the caller closes its descriptor) with its status, or why it was refused.
    package static func open(_ path: String, flags: Int32 = O_RDONLY, mode: mode_t = 0o644, owned: Bool = false)
        -> Result<Opened, Failure>
    {
        let descriptor = Glibc.open(path, flags | O_CLOEXEC | O_NONBLOCK | (owned ? O_NOFOLLOW : 0), mode)
        guard descriptor >= 0 else {
            let code = errno
            let reason =
                switch code {
                case ENOENT: "no such file"
                // What a non-blocking open for writing says of a FIFO nobody reads.
                case ENXIO: "it is a FIFO or a socket, not a regular file"
                case ELOOP where owned: "it is a symbolic link, which flowrun does not follow in its store"
                default: String(cString: strerror(code))
                }
            return .failure(Failure(reason: reason, code: code))
        }
        var status = stat()
        let refusal: Failure? =
            if fstat(descriptor, &status) != 0 {
                Failure(reason: String(cString: strerror(errno)), code: 0)
            } else if status.st_mode & S_IFMT == S_IFDIR {
                Failure(reason: "it is a folder, not a file", code: EISDIR)
            } else if status.st_mode & S_IFMT != S_IFREG {
                Failure(reason: "it is \(describe(status.st_mode & S_IFMT)), not a regular file", code: 0)
            } else if owned && status.st_uid != geteuid() {
                Failure(reason: "it belongs to user \(status.st_uid), not to this user (\(geteuid()))", code: 0)
            } else {
                nil
            }
        if let refusal {
            close(descriptor)
            return .failure(refusal)
        }
        // Back to blocking reads and writes: the rest of flowrun expects them (regular files never block long).
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return .success(Opened(descriptor: descriptor, status: status))
    }

    /// Everything from an open regular file's current offset to its end.
    /// - Parameter limit: The most bytes read; a larger file fails, before anything is read when its size says so.
    package static func readAll(_ descriptor: Int32, limit: Int = .max) -> Result<[UInt8], Failure> {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(Failure(errno: errno)) }
        guard Int(status.st_size) <= limit else {
            return .failure(
                Failure(reason: "it is \(status.st_size) bytes, more than the limit of \(limit) bytes", code: 0))
        }
        // One byte more than the size, so the read that finds the end needs no growth; a file that grew since
        // fstat is read up to the limit and refused past it.
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count <= limit else {
                    return .failure(Failure(reason: "it is more than the limit of \(limit) bytes", code: 0))
                }
                bytes += [UInt8](repeating: 0, count: min(max(bytes.count, 4096), limit + 1 - bytes.count))
            }
            let count = bytes.withUnsafeMutableBytes { buffer in
                guard let start = buffer.baseAddress else { return 0 }
                return Glibc.read(descriptor, start + filled, buffer.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Failure(errno: errno))
            }
            if count == 0 { break }
            filled += count
        }
        bytes.removeLast(bytes.count - filled)
        return .success(bytes)
    }

    /// What a file of a kind (`st_mode & S_IFMT`) other than a regular file is, for messages: "a FIFO".
    static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a folder"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
    }
}

extension RegularFile.Failure {
    /// The failure of a system call, in the system's words.
    init(errno code: Int32) {
        self.init(reason: String(cString: strerror(code)), code: code)
    }
}
