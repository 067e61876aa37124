#if canImport(Glibc)
    import Glibc
#endif

/// Reads the files a workflow is made of — the workflow itself, its `uses:` pipelines, its `forEach` list files
/// and `--env-file`s — whole, but only regular files of bounded size: a FIFO would block the load forever,
/// `/dev/zero` or a sparse file of a gigabyte would fill memory, and each failure names its real cause.
package enum DefinitionFile {
    /// The largest workflow, pipeline or env file read: far above any written by hand.
    package static let maxBytes = 16 << 20
    /// The largest `forEach` list file read: a million long paths.
    package static let maxListBytes = 256 << 20

    /// Why a file could not be read, in words that end "cannot read … 'x': <reason>".
    package struct Failure: Error, Sendable {
        /// The reason, such as "no such file" or "it is a folder".
        package let reason: String
        /// Whether the file does not exist (callers add where they looked).
        package let isMissing: Bool
    }

    /// The bytes of the regular file at `path`, or why it cannot be read.
    /// - Parameter limit: The most bytes read; a larger file fails.
    package static func read(_ path: String, limit: Int = maxBytes) -> Result<[UInt8], Failure> {
        // Non-blocking, so opening a FIFO with no writer returns at once rather than waiting for one.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            return .failure(
                Failure(
                    reason: code == ENOENT ? "no such file" : String(cString: strerror(code)), isMissing: code == ENOENT
                ))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(Failure(errno: errno)) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .failure(Failure(reason: "it is a folder, not a file", isMissing: false))
        case let kind: return .failure(Failure(reason: "it is \(describe(kind)), not a regular file", isMissing: false))
        }
        guard Int(status.st_size) <= limit else {
            return .failure(
                Failure(
                    reason: "it is \(status.st_size) bytes, more than the limit of \(limit) bytes", isMissing: false))
        }
        // One byte more than the size, so the read that finds the end needs no growth; a file that grew since
        // fstat is read up to the limit and refused past it.
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count <= limit else {
                    return .failure(Failure(reason: "it is more than the limit of \(limit) bytes", isMissing: false))
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

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }
}

extension DefinitionFile.Failure {
    init(errno code: Int32) {
        self.init(reason: String(cString: strerror(code)), isMissing: false)
    }
}
