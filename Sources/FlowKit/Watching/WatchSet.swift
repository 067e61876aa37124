import SystemPackage

/// What a watch looks at: single files, such as a workflow and what it imports, and folder trees, such as the
/// folders a glob reads.
///
/// A file is watched through its folder, so a save by an editor that writes a new file and renames it over
/// the old one is seen like an edit in place, and a file that does not exist yet is seen when it appears.
///
/// ```swift
/// import SystemPackage
///
/// let photos = WatchSet.Tree(root: "photos") { $0.extension?.lowercased() == "jpg" }
/// let set = WatchSet(files: ["gallery.yaml"], trees: [photos])
/// ```
package struct WatchSet: Sendable {
    /// A folder watched with every folder below it.
    package struct Tree: Sendable {
        /// The folder at the top of the tree.
        package var root: FilePath
        /// Whether a change to a file below `root` is worth a run, given its whole path (a glob's pattern,
        /// usually). Changes to hidden files and folders never are.
        package var matches: @Sendable (FilePath) -> Bool
        /// Whether a folder below `root`, given its whole path, is watched with what is below it: where the glob
        /// may find matches, and no exclude pattern names it. A symbolic link is followed, as the glob's walk
        /// follows one, only to a folder inside `root`.
        package var descends: @Sendable (FilePath) -> Bool

        /// Creates a tree whose changes count when `matches` accepts the changed file.
        package init(
            root: FilePath, matches: @escaping @Sendable (FilePath) -> Bool = { _ in true },
            descends: @escaping @Sendable (FilePath) -> Bool = { _ in true }
        ) {
            self.root = root
            self.matches = matches
            self.descends = descends
        }
    }

    /// Files whose changes count.
    package var files: [FilePath]
    /// Folder trees whose matching files' changes count.
    package var trees: [Tree]
    /// Folders never watched, however a tree reaches them: the store's.
    package var ignoredFolders: Set<FilePath>
    /// Files whose changes never count: what the runs write (lexically normalized).
    package var ignoredFiles: Set<FilePath>

    /// The most folders a watch watches: each costs the kernel a watch (of the user's limit, often 8,192 to
    /// 65,536 in all) and a re-arm walks them all; a glob that reaches more is refused, saying so.
    package static let maxFolders = 10_000

    /// Creates a watch set.
    package init(
        files: [FilePath] = [], trees: [Tree] = [], ignoredFolders: Set<FilePath> = [],
        ignoredFiles: Set<FilePath> = []
    ) {
        self.files = files
        self.trees = trees
        self.ignoredFolders = ignoredFolders
        self.ignoredFiles = Set(ignoredFiles.map { $0.lexicallyNormalized() })
    }
}

/// The changes one wait for a watch collected, once they settled.
public struct WatchChanges: Sendable, Equatable {
    /// The files and folders that were created, written, removed or renamed, in the order they first changed.
    public var paths: [FilePath] = []
    /// Whether the kernel dropped events (its queue overflowed): anything may have changed.
    public var overflowed = false

    /// Whether nothing changed.
    public var isEmpty: Bool { paths.isEmpty && !overflowed }

    /// Creates an empty set of changes.
    public init() {}

    mutating func insert(_ path: FilePath, seen: inout Set<FilePath>) {
        if seen.insert(path).inserted { paths.append(path) }
    }
}

/// Why a watch could not start or go on.
public enum WatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The per-user limit on inotify watches was reached.
    case tooManyFolders(FilePath)
    /// A system call failed.
    case system(String, Errno)
    /// The globs reach more folders than a watch watches (`WatchSet.maxFolders`), from this one.
    case tooManyToWatch(FilePath, limit: Int)

    /// What failed, with the system's reason.
    public var description: String {
        switch self {
        case .tooManyFolders(let folder):
            return
                "cannot watch \(folder): the system's limit on watched folders was reached; raise it with "
                + "'sysctl fs.inotify.max_user_watches=524288'"
        case .system(let what, let code):
            return "\(what): \(code)"
        case .tooManyToWatch(let root, let limit):
            let named = root.isEmpty ? "." : root.string
            return
                "cannot watch the globs' folders: there are more than \(limit) under \(named); start the glob in "
                + "a narrower folder, or exclude folders it need not read"
        }
    }
}
