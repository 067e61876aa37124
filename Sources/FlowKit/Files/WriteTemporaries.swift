import Foundation
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The temporary files every atomic write of flowrun goes through — outputs, reports, traces, pages, blobs — and
/// the removal of those a killed process left behind.
///
/// A temporary is `.flowrun-NAME.XXXXXX` (`mkstemp`'s six random characters) in the folder of the file `NAME` it
/// becomes, so the final `rename(2)` stays atomic. Its writer holds an exclusive `flock(2)` on it for as long as it
/// lives; the kernel drops the lock when the process ends, however it ends. So a temporary whose lock can be taken
/// was left by `kill -9`, a crash or a power loss, whichever process or workflow made it, and the sweep removes
/// only those: never a temporary a live writer is filling.
package enum WriteTemporaries {
    static let prefix = ".flowrun-"
    /// `mkstemp`'s six random characters.
    static let randomLength = 6

    /// A temporary, open for writing and locked.
    package struct Temporary {
        package let path: String
        package let descriptor: Int32
    }

    /// Creates and locks a temporary for the file `name` in `folder`.
    /// - Throws: The OS's reason, e.g. when the folder does not exist or is not writable.
    package static func create(for name: String, in folder: String) throws(FileWriteError) -> Temporary {
        while true {
            var template = Array((folder + "/" + prefix + name + ".XXXXXX").utf8CString)
            let descriptor = template.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { mkstemp($0) } ?? -1
            }
            guard descriptor >= 0 else {
                let path = folder + "/" + name
                throw FileWriteError(path: path, message: "cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var info = stat()
            // A sweep may have taken the name between `mkostemp` and the lock: it removed it, so start again.
            guard flock(descriptor, LOCK_EX) == 0, fstat(descriptor, &info) == 0, info.st_nlink > 0 else {
                close(descriptor)
                continue
            }
            // What a plain `open(…, 0o644)` would make: others may read outputs, reports and blobs.
            fchmod(descriptor, 0o644)
            return Temporary(path: path, descriptor: descriptor)
        }
    }

    /// Whether `entry` is the name of a temporary of a file named `name`.
    static func isTemporary(_ entry: String, of name: String) -> Bool {
        let random = entry.suffix(randomLength)
        return entry == prefix + name + "." + random
            && random.count == randomLength && random.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// Removes the temporaries of the files `names` in `folder` that no live process holds.
    /// - Returns: The temporaries removed.
    @discardableResult
    package static func removeStale(ofFilesNamed names: Set<String>, in folder: String) -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var removed: [String] = []
        for entry in entries where entry.hasPrefix(prefix) {
            let name = String(entry.dropFirst(prefix.count).dropLast(randomLength + 1))
            guard names.contains(name), isTemporary(entry, of: name) else { continue }
            let path = folder + "/" + entry
            if removeIfAbandoned(path) { removed.append(path) }
        }
        return removed
    }

    /// Removes the temporaries a killed run left of these outputs, in their folders.
    /// - Parameter outputs: The files the plan writes (resolved paths; `nil` for nodes that write none).
    /// - Returns: The temporaries removed.
    @discardableResult
    package static func removeStale(of outputs: [String?]) -> [String] {
        var namesByFolder: [String: Set<String>] = [:]
        for case let path? in outputs {
            namesByFolder[FilePaths.folder(of: path), default: []].insert(FilePaths.name(of: path))
        }
        return namesByFolder.flatMap { removeStale(ofFilesNamed: $0.value, in: $0.key) }
    }

    /// Unlinks a regular file whose lock no process holds, holding the lock while it does.
    private static func removeIfAbandoned(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            flock(descriptor, LOCK_EX | LOCK_NB) == 0
        else { return false }
        return unlink(path) == 0
    }
}
