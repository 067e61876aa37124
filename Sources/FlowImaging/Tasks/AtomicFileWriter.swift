import FlowKit
import Foundation

/// Writes a file so that it appears complete or not at all: the bytes go to a temporary file in the target
/// folder, which is then renamed into place (`rename(2)` is atomic within a file system).
///
/// Every failure path — including cancellation just before the rename — deletes the temporary file; one that
/// `kill -9` leaves behind is removed by the next run (``WriteTemporaries``).
/// When `overwrite` is false, `link(2)` moves the file into place instead of `rename(2)`: it fails with `EEXIST`
/// rather than replacing a file that appeared meanwhile.
struct AtomicFileWriter {
    /// A failure, with the path and the OS error text.
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// The final path.
    let path: String
    /// Whether an existing file may be replaced.
    let overwrite: Bool

    /// Writes `data`; `isCancelled` is asked just before the file is moved into place.
    /// - Returns: `false` when cancelled (nothing left behind), `true` when written.
    func write(_ data: Data, isCancelled: () -> Bool) throws(Failure) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        try makeFolders(folder.isEmpty ? "." : folder)
        if !overwrite, access(path, F_OK) == 0 {
            throw Failure(message: "'\(path)' already exists and overwrite is false")
        }
        var template = Array(WriteTemporaries.template(for: path).utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw failure("cannot create a temporary file for '\(path)'") }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var keep = false
        defer { if !keep { unlink(temporary) } }
        do {
            defer { close(fd) }
            // The errno of a failed write(2), or 0.
            let writeError: Int32 = data.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return 0 }
                var offset = 0
                while offset < raw.count {
                    let n = Foundation.write(fd, base + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += n
                }
                return 0
            }
            if writeError != 0 {
                throw Failure(message: "cannot write '\(path)': \(String(cString: strerror(writeError)))")
            }
            fchmod(fd, 0o644)
        }
        if isCancelled() { return false }
        if overwrite {
            guard rename(temporary, path) == 0 else { throw failure("cannot write '\(path)'") }
        } else {
            guard link(temporary, path) == 0 else {
                if errno == EEXIST { throw Failure(message: "'\(path)' already exists and overwrite is false") }
                throw failure("cannot write '\(path)'")
            }
            // `defer` unlinks the temporary name; the file lives on under `path`.
            return true
        }
        keep = true
        return true
    }

    /// Creates `folder` and its parents (like `mkdir -p`).
    private func makeFolders(_ folder: String) throws(Failure) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return }
            throw Failure(
                message: "cannot write '\(path)': cannot create folder '\(folder)': "
                    + String(cString: strerror(ENOTDIR)))
        }
        let parent = (folder as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != folder { try makeFolders(parent) }
        if mkdir(folder, 0o755) != 0, errno != EEXIST {
            throw failure("cannot write '\(path)': cannot create folder '\(folder)'")
        }
    }

    /// A failure with the current `errno`'s text.
    private func failure(_ what: String) -> Failure {
        Failure(message: "\(what): \(String(cString: strerror(errno)))")
    }
}
