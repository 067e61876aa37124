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

    /// A path joined to the workflow's folder, with `.`, `..` and repeated slashes removed lexically.
    static func normalised(_ path: String, in directory: String) -> String {
        let joined = path.hasPrefix("/") || directory.isEmpty || directory == "." ? path : directory + "/" + path
        let absolute = joined.hasPrefix("/")
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
