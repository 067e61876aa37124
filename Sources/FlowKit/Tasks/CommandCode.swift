import Foundation
import Synchronization

/// The files a `command` runs, whose content is part of its key (``CommandTask/sourceIdentity(_:directory:cache:)``):
/// every `argv` entry that names an existing file inside the workflow's folder tree (the script: `./gen.sh`,
/// `python3 scripts/manifest.py`), and the files its `inputs:` list (paths or globs relative to the workflow).
///
/// A program found on `PATH` (`argv[0]` without a slash) is keyed by its name alone: what is installed is the
/// machine's, not the workflow's. Entries with `${inputs}` or `${input}` name what the dependencies made, which
/// their keys already stand for. Of these files, the program and the script an interpreter runs must be there
/// before a run (``CommandScript``).
enum CommandCode {
    /// The files a node with these parameters runs, resolved (absolute), in the order named, each once.
    static func files(_ parameters: CommandTask.Parameters, directory: String) -> [String] {
        let root = CommandInvocation.absolute(NodeContext.resolve(".", in: directory))
        let workingDirectory = Self.workingDirectory(parameters.workingDirectory, directory: directory)
        var files: [String] = []
        var seen = Set<String>()
        func add(_ path: String) {
            if seen.insert(path).inserted { files.append(path) }
        }
        for (position, entry) in parameters.argv.enumerated() {
            guard let path = codePath(entry, at: position, workingDirectory: workingDirectory) else { continue }
            if isInside(path, root), FileStamp(path: path) != nil { add(path) }
        }
        for pattern in parameters.inputs ?? [] {
            for path in matches(of: pattern, directory: directory) { add(path) }
        }
        return files
    }

    /// The absolute folder a command with this `workingDirectory` runs in, which its `argv` paths are relative to.
    static func workingDirectory(_ written: String?, directory: String) -> String {
        CommandInvocation.absolute(NodeContext.resolve(written ?? ".", in: directory))
    }

    /// The file an `argv` entry may name, resolved against the working directory: a literal entry, and for the
    /// program only one with a `/` (a bare name is looked up on `PATH`); `nil` otherwise.
    static func codePath(_ entry: String, at position: Int, workingDirectory: String) -> String? {
        guard !entry.isEmpty, !entry.contains("${"), position > 0 || entry.contains("/") else { return nil }
        return standardized(CommandInvocation.absolute(entry, base: workingDirectory))
    }

    /// Whether `path` (standardized) is inside the folder tree of `root`.
    static func isInside(_ path: String, _ root: String) -> Bool {
        let root = standardized(root)
        return path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    /// The files an `inputs:` entry names: a glob's matches, or the one path; resolved, sorted.
    static func matches(of pattern: String, directory: String) -> [String] {
        guard let glob = try? GlobPattern(pattern) else {
            let path = standardized(CommandInvocation.absolute(NodeContext.resolve(pattern, in: directory)))
            return FileStamp(path: path) == nil ? [] : [path]
        }
        let walker = GlobWalker(includes: [glob], excludes: [], directory: directory)
        return walker.walk().matches.map {
            standardized(CommandInvocation.absolute(NodeContext.resolve($0.path, in: directory)))
        }
    }

    /// The identity of the files: each path with the SHA-256 of its content; `nil` for none.
    static func identity(of files: [String]) -> SourceIdentity? {
        guard !files.isEmpty else { return nil }
        let parts = files.map { path in "\(path) sha256 \(digest(of: path) ?? "unreadable")" }
        return SourceIdentity("runs " + parts.joined(separator: ", "))
    }

    /// The digest of a file, read once per process while its stamp stays: planning and keying both ask, for
    /// every node of a task.
    private static func digest(of path: String) -> String? {
        guard let stamp = FileStamp(path: path) else { return nil }
        if let known = digests.withLock({ $0[path] }), known.stamp == stamp { return known.digest }
        guard let digest = ContentDigest.ofFile(atPath: path) else { return nil }
        digests.withLock { $0[path] = (stamp, digest) }
        return digest
    }

    private static let digests = Mutex<[String: (stamp: FileStamp, digest: String)]>([:])

    private static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
