import Foundation
import SystemPackage

/// Paths as workflows write them, made comparable: joined to a folder and normalised lexically.
package enum FilePaths {
    /// The absolute, normalised path a file is known by: two spellings of one path collide.
    static func key(of path: String, in directory: String) -> String {
        let joined = normalised(path, in: directory)
        if joined.hasPrefix("/") { return joined }
        return normalised(joined, in: FileManager.default.currentDirectoryPath)
    }

    /// `path` as it is under `directory` (`/work/site/photos/a.jpg` under `/work/site` is `photos/a.jpg`), or
    /// `path` unchanged when it is not under it: what a key names a file by, the same in every checkout.
    package static func relative(_ path: String, to directory: String) -> String {
        guard !directory.isEmpty, directory != "." else { return path }
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        guard path.utf8.count > folder.utf8.count, path.utf8.starts(with: folder.utf8) else { return path }
        return String(decoding: path.utf8.dropFirst(folder.utf8.count), as: UTF8.self)
    }

    /// A path joined to the workflow's folder, with `.`, `..` and repeated slashes removed lexically.
    static func normalised(_ path: String, in directory: String) -> String {
        let joined = path.hasPrefix("/") || directory.isEmpty || directory == "." ? path : directory + "/" + path
        let absolute = joined.hasPrefix("/")
        if isNormal(joined) { return joined }
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..":
                if let last = parts.last, last != ".." {
                    parts.removeLast()
                } else if !absolute {
                    parts.append(part)
                }
            default: parts.append(part)
            }
        }
        let text = parts.joined(separator: "/")
        return absolute ? "/" + text : (text.isEmpty ? "." : text)
    }

    /// Whether a path is already what ``normalised(_:in:)`` makes of it: not empty, no empty, `.` or `..`
    /// component, no trailing slash. Checked on its bytes, so the paths of a 100,000-item workflow, nearly all
    /// normal, are not split and joined again.
    static func isNormal(_ path: String) -> Bool {
        path.utf8.withContiguousStorageIfAvailable { bytes in
            guard let last = bytes.last, last != UInt8(ascii: "/") || bytes.count == 1 else { return false }
            var componentStart = 0
            for index in 0...bytes.count {
                guard index == bytes.count || bytes[index] == UInt8(ascii: "/") else { continue }
                let length = index - componentStart
                let dots = bytes[componentStart..<index].allSatisfy { $0 == UInt8(ascii: ".") }
                // An empty component is fine only as the root's leading slash.
                if length == 0 && componentStart != 0 { return false }
                if length > 0 && length <= 2 && dots { return false }
                componentStart = index + 1
            }
            return true
        } ?? false
    }
}

extension FilePaths {
    /// The folder of `path` (`.` when it names none): swift-system's reading, which holds for one-character names.
    package static func folder(of path: String) -> String {
        let folder = FilePath(path).removingLastComponent().string
        return folder.isEmpty ? "." : folder
    }

    /// The last component of `path`: the file's name.
    package static func name(of path: String) -> String { FilePath(path).lastComponent?.string ?? "" }

    /// The last component of `path` without its extension.
    package static func stem(of path: String) -> String { FilePath(path).stem ?? "" }

    /// The extension of `path`'s last component, without the dot; empty when it has none.
    package static func fileExtension(of path: String) -> String { FilePath(path).extension ?? "" }
}
