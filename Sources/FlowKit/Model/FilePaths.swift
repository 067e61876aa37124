import Foundation

/// Paths as workflows write them, made comparable: joined to a folder and normalised lexically.
enum FilePaths {
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
