#if canImport(Glibc)
    import Glibc
#endif

/// What makes a file the same file however it is reached: its device and inode. Walks of folder trees keep the
/// folders they entered by it, so a symbolic link that loops back is entered once.
struct FileIdentity: Hashable {
    var device: UInt64
    var inode: UInt64

    /// The identity of the file `stat` or `fstat` described.
    init(_ info: stat) {
        (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// The identity of the file at `path`, following links; `nil` when it cannot be read.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }
}
