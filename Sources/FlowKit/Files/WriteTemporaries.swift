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
        removeStale(temporaries(in: folder), in: folder) { names.contains($0) }
    }

    /// Removes the temporaries in `folder` of the files whose names `isWritten` accepts that no live process holds.
    /// - Returns: The temporaries removed.
    @discardableResult
    package static func removeStale(in folder: String, of isWritten: (String) -> Bool) -> [String] {
        removeStale(temporaries(in: folder), in: folder, isWritten: isWritten)
    }

    /// Removes the temporaries a killed run left of these outputs, in their folders.
    ///
    /// Each folder is listed first, and only a folder that holds temporaries has the names of the outputs in it
    /// gathered: a rerun of 100,000 writes into one folder that a clean run left lists it once and looks at no
    /// output's name.
    /// - Parameter outputs: The files the plan writes (resolved paths; `nil` for nodes that write none).
    /// - Returns: The temporaries removed.
    @discardableResult
    package static func removeStale(of outputs: [String?]) -> [String] {
        var found: [String: [String]] = [:]
        for folder in folders(of: outputs) {
            let temporaries = temporaries(in: folder)
            if !temporaries.isEmpty { found[folder] = temporaries }
        }
        guard !found.isEmpty else { return [] }
        var namesByFolder: [String: Set<String>] = [:]
        for case let path? in outputs {
            let folder = FilePaths.folder(of: path)
            if found[folder] != nil { namesByFolder[folder, default: []].insert(FilePaths.name(of: path)) }
        }
        return found.flatMap { folder, temporaries in
            removeStale(temporaries, in: folder) { namesByFolder[folder]?.contains($0) ?? false }
        }
    }

    /// The distinct folders of `paths`, in the order first met. A path's folder is read with ``FilePaths`` only
    /// where the text before its last `/` differs from the path before it: the outputs of a task mostly share
    /// one folder, and two paths with the same text there and a name after it have the same folder.
    static func folders(of paths: [String?]) -> [String] {
        var folders: [String] = []
        var seen: Set<String> = []
        var previousPrefix: Substring?
        for case let path? in paths {
            let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
            let prefix = slash.map { path[...$0] } ?? ""
            let hasName = slash.map { path.utf8.index(after: $0) != path.endIndex } ?? !path.isEmpty
            if hasName, prefix == previousPrefix { continue }
            previousPrefix = hasName ? prefix : nil
            let folder = FilePaths.folder(of: path)
            if seen.insert(folder).inserted { folders.append(folder) }
        }
        return folders
    }

    /// The entries of `folder` that start like a temporary (``prefix``); only those are made into strings, so a
    /// folder of 100,000 outputs costs one pass of `readdir`. Empty when the folder cannot be read.
    static func temporaries(in folder: String) -> [String] {
        guard let stream = opendir(folder) else { return [] }
        defer { closedir(stream) }
        var found: [String] = []
        let marker = Array(prefix.utf8)
        while let entry = readdir(stream) {
            let name: String? = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                guard bytes.starts(with: marker) else { return nil }
                return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let name { found.append(name) }
        }
        return found
    }

    /// Removes those of the `entries` of `folder` (``temporaries(in:)``: each starts with ``prefix``) that are
    /// temporaries of a file whose name `isWritten` accepts and that no live process holds.
    private static func removeStale(_ entries: [String], in folder: String, isWritten: (String) -> Bool)
        -> [String]
    {
        var removed: [String] = []
        for entry in entries {
            let name = String(entry.dropFirst(prefix.count).dropLast(randomLength + 1))
            guard isWritten(name), isTemporary(entry, of: name) else { continue }
            let path = folder + "/" + entry
            if removeIfAbandoned(path) { removed.append(path) }
        }
        return removed
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
