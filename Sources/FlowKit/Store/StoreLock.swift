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
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw StoreError.posix("cannot open \(path)", errno) }
        let deadline = ContinuousClock.now + wait
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(descriptor)
                throw StoreError.posix("cannot lock \(path)", code)
            }
            guard ContinuousClock.now < deadline else {
                let holder = (try? String(contentsOfFile: path, encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
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

    /// Whether another flowrun holds the lock.
    package var isBusy: Bool {
        if case .busy = self { return true }
        return false
    }

    package var description: String {
        switch self {
        case .busy(let lock, let holder):
            let who = holder.map { "another flowrun (pid \($0))" } ?? "another flowrun"
            return
                "the store is in use by \(who) (lock \(lock)); wait for it to finish, or give this run its own "
                + "--state-dir (or --no-cache)"
        case .posix(let what, let code):
            return "\(what): \(String(cString: strerror(code)))"
        }
    }
}
