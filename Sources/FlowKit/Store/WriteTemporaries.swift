import Foundation

/// The temporary files an atomic write goes through (`.flowrun-NAME.XXXXXX` beside the output `NAME`, renamed
/// into place when complete), and the removal of those a killed run left behind.
///
/// A write removes its temporary on every path it controls; only `kill -9` (or a crash or power loss) during a
/// write leaves one. The next run of the same workflow removes them before it starts — only names of this
/// pattern, only for files its own plan writes, and only while it holds the store's lock, so no live run of the
/// workflow is writing them.
package enum WriteTemporaries {
    static let prefix = ".flowrun-"
    /// `mkstemp`'s six random characters.
    static let randomLength = 6

    /// The `mkstemp` template of the temporary for `path`: in the same folder, so the rename stays atomic.
    package static func template(for path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return (folder.isEmpty ? "." : folder) + "/" + prefix + (path as NSString).lastPathComponent + ".XXXXXX"
    }

    /// Whether `name` is the temporary of a file named `output` made from ``template(for:)``.
    static func isTemporary(_ name: String, of output: String) -> Bool {
        let random = name.suffix(randomLength)
        return name == prefix + output + "." + random
            && random.count == randomLength && random.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// Removes the temporaries of these outputs left in their folders by an earlier, killed run.
    /// Call it only while holding the store's lock.
    /// - Parameter outputs: The files the plan writes (resolved paths; `nil` for nodes that write none).
    /// - Returns: The temporaries removed.
    @discardableResult
    package static func removeStale(of outputs: [String?]) -> [String] {
        var namesByFolder: [String: Set<String>] = [:]
        for case let path? in outputs {
            let folder = (path as NSString).deletingLastPathComponent
            namesByFolder[folder.isEmpty ? "." : folder, default: []].insert((path as NSString).lastPathComponent)
        }
        var removed: [String] = []
        for (folder, outputNames) in namesByFolder {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for entry in entries where entry.hasPrefix(prefix) {
                let output = String(entry.dropFirst(prefix.count).dropLast(randomLength + 1))
                guard outputNames.contains(output), isTemporary(entry, of: output) else { continue }
                let path = folder + "/" + entry
                if unlink(path) == 0 { removed.append(path) }
            }
        }
        return removed
    }
}
