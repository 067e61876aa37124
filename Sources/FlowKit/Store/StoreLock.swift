import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive lock on a store, held for a whole run, so two flowruns never interleave their journals.
///
/// `flock` on `lock` in the store: the kernel drops it when the process ends, however it ends, so a run killed
/// with `kill -9` leaves no stale lock behind. The holder's pid is written into the file for the message a
/// second flowrun prints.
package final class StoreLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock file at `path`, waiting up to `wait` for another flowrun to let go.
    /// - Throws: ``StoreError`` when the lock file cannot be opened, or when another flowrun still holds it.
    package init(path: String, wait: Duration) throws {
        let descriptor = try RegularFile.openInStore(path, flags: O_RDWR | O_CREAT)
        let deadline = ContinuousClock.now + wait
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(descriptor)
                throw StoreError.posix("cannot lock \(path)", code)
            }
            guard ContinuousClock.now < deadline else {
                let holder = (try? RegularFile.readAll(descriptor).get()).map {
                    String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                }
                close(descriptor)
                throw StoreError.busy(lock: path, holder: holder.flatMap(Int32.init))
            }
            usleep(20_000)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    /// Lets go of the lock before the handle goes: another run may take it while this one still holds the file.
    package func release() {
        flock(descriptor, LOCK_UN)
    }

    deinit {
        close(descriptor)  // also releases the flock
    }
}

/// Why a store could not be used.
package enum StoreError: Error, Sendable, CustomStringConvertible {
    /// Another flowrun holds the store's lock.
    case busy(lock: String, holder: Int32?)
    /// A system call failed.
    case posix(String, Int32)
    /// A file of the store is not a regular file of this user's (a planted link, a FIFO): flowrun does not use it.
    case refused(path: String, reason: String)
    /// A folder the store owns (its blobs, its previews) holds files flowrun did not make: it is not cleaned, as Git
    /// will not clone into a folder that holds files.
    case notOwned(folder: String, strangers: [String])

    /// Whether another flowrun holds the lock.
    package var isBusy: Bool {
        if case .busy = self { return true }
        return false
    }

    package var description: String {
        switch self {
        case .busy(let lock, let holder):
            let who = holder.map { "another flowrun (pid \($0))" } ?? "another flowrun"
            return "the store is in use by \(who) (lock \(lock)); wait for it to finish"
        case .posix(let what, let code):
            return "\(what): \(String(cString: strerror(code)))"
        case .refused(let path, let reason):
            return "the store's file \(path) cannot be used: \(reason); remove it, or give this run another --state-dir"
        case .notOwned(let folder, let strangers):
            let shown = strangers.prefix(3).joined(separator: ", ")
            let more = strangers.count > 3 ? " and \(strangers.count - 3) more" : ""
            return
                "\(folder) holds files flowrun did not make (\(shown)\(more)); flowrun cleans only folders of its own, "
                + "so nothing was removed: move them out, or give --state-dir a folder of its own"
        }
    }
}

extension RegularFile {
    /// Opens one of the store's own files (journal, lock): never through a link, only a regular file of this
    /// user's.
    /// - Throws: ``StoreError/refused(path:reason:)`` for any other file, ``StoreError/posix(_:_:)`` when the
    ///   open itself fails.
    static func openInStore(_ path: String, flags: Int32) throws(StoreError) -> Int32 {
        switch open(path, flags: flags, owned: true) {
        case .success(let opened): return opened.descriptor
        case .failure(let failure) where [0, EISDIR, ELOOP, ENXIO].contains(failure.code):
            throw .refused(path: path, reason: failure.reason)
        case .failure(let failure): throw .posix("cannot open \(path)", failure.code)
        }
    }
}
