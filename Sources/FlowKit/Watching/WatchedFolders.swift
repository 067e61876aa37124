import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// One folder inotify watches, and why.
struct WatchedFolder: Sendable {
    /// The folder; empty for the current folder.
    var path: FilePath
    /// Names of watched files in it.
    var files: Set<String> = []
    /// The indexes of the trees it belongs to.
    var trees: [Int] = []
    /// Names of missing folders below it that a watched file or tree needs: their arrival re-arms the watch.
    var awaits: Set<String> = []
}

/// The folders a watch has armed, by inotify descriptor and by path.
struct WatchedFolders: Sendable {
    private(set) var byDescriptor: [Int32: WatchedFolder] = [:]
    private(set) var byPath: [FilePath: Int32] = [:]

    /// What every watched folder listens for: entries made, written, touched, removed or renamed, and the folder
    /// itself going away.
    static let mask = UInt32(
        IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF
            | IN_MOVE_SELF | IN_ONLYDIR)

    mutating func insert(_ folder: WatchedFolder, descriptor: Int32) {
        byDescriptor[descriptor] = folder
        byPath[folder.path] = descriptor
    }

    /// Hidden files and folders, and editors' lock and backup files, never count as changes.
    static func isHidden(_ name: String) -> Bool {
        name.hasPrefix(".") || name.hasSuffix("~") || (name.hasPrefix("#") && name.hasSuffix("#"))
    }

    /// The names of the files (not folders) in `folder`; empty when it cannot be read.
    static func files(in folder: FilePath) -> [String] {
        entries(of: folder).filter { !$0.isFolder }.map(\.name)
    }

    /// The folders a watch set needs, worked out from what exists now.
    struct Plan {
        private(set) var folders: [FilePath: WatchedFolder] = [:]
        private var visited = Set<FileIdentity>()
        /// Folders never watched (the store's), by identity: however a path names them.
        var ignored: Set<FileIdentity> = []

        /// Watches the folder of `file` for it, or the nearest folder that exists above it.
        mutating func addFile(_ file: FilePath) {
            guard let name = file.lastComponent?.string else { return }
            let folder = file.removingLastComponent()
            if WatchedFolders.isFolder(folder) {
                folders[folder, default: WatchedFolder(path: folder)].files.insert(name)
            } else {
                awaitFolder(folder)
            }
        }

        /// Watches the tree's root and the folders below it its glob reads (``WatchSet/Tree/descends``), none
        /// hidden, none ignored, through a symbolic link only to a folder inside the root (as the glob's walk),
        /// and each once however links loop.
        /// - Throws: ``WatchError/tooManyToWatch(_:limit:)`` past ``WatchSet/maxFolders`` folders in all.
        mutating func addTree(_ tree: WatchSet.Tree, index: Int) throws(WatchError) {
            let root = tree.root
            guard WatchedFolders.isFolder(root) else { return awaitFolder(root) }
            let realRoot = WatchedFolders.realPath(root)
            var pending = [root]
            while let folder = pending.popLast() {
                guard let identity = FileIdentity(path: WatchedFolders.systemPath(folder)),
                    !ignored.contains(identity), visited.insert(identity).inserted
                else { continue }
                if folders[folder] == nil, folders.count >= WatchSet.maxFolders {
                    throw .tooManyToWatch(root, limit: WatchSet.maxFolders)
                }
                folders[folder, default: WatchedFolder(path: folder)].trees.append(index)
                for entry in WatchedFolders.entries(of: folder) where entry.isFolder && !isHidden(entry.name) {
                    let below = folder.appending(entry.name)
                    guard tree.descends(below) else { continue }
                    if entry.isLink {
                        guard let realRoot, let target = WatchedFolders.realPath(below),
                            target == realRoot || target.hasPrefix(realRoot == "/" ? "/" : realRoot + "/")
                        else { continue }
                    }
                    pending.append(below)
                }
            }
            visited.removeAll()  // another tree may overlap this one and must see its folders too
        }

        /// Watches the nearest existing folder above a missing one, for the missing one's arrival.
        private mutating func awaitFolder(_ missing: FilePath) {
            var child = missing
            var parent = missing.removingLastComponent()
            while !WatchedFolders.isFolder(parent) {
                guard !parent.isEmpty, parent != child else { return }
                child = parent
                parent = parent.removingLastComponent()
            }
            guard let name = child.lastComponent?.string else { return }
            folders[parent, default: WatchedFolder(path: parent)].awaits.insert(name)
        }
    }

    private struct Entry {
        var name: String
        var isFolder: Bool
        var isLink = false
    }

    /// The path with every link resolved (`realpath`); `nil` when it does not resolve.
    static func realPath(_ path: FilePath) -> String? {
        guard let resolved = realpath(systemPath(path), nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The path to hand the system: the current folder for an empty one.
    static func systemPath(_ path: FilePath) -> String {
        path.isEmpty ? "." : path.string
    }

    private static func isFolder(_ path: FilePath) -> Bool {
        var info = stat()
        return stat(systemPath(path), &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// A folder's entries, a symbolic link described by what it points to (loops are cut by the walk's identities).
    private static func entries(of folder: FilePath) -> [Entry] {
        guard let stream = opendir(systemPath(folder)) else { return [] }
        defer { closedir(stream) }
        var entries: [Entry] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            let type = entry.pointee.d_type
            let path = folder.appending(name)
            let isLink =
                type == UInt8(DT_LNK)
                || (type == UInt8(DT_UNKNOWN)
                    && {
                        var info = stat()
                        return lstat(systemPath(path), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
                    }())
            let isFolder =
                type == UInt8(DT_DIR) || ((isLink || type == UInt8(DT_UNKNOWN)) && Self.isFolder(path))
            entries.append(Entry(name: name, isFolder: isFolder, isLink: isLink))
        }
        return entries
    }
}

/// One event as inotify reports it.
struct InotifyEvent {
    var descriptor: Int32
    var mask: UInt32
    /// The entry's name within the watched folder; `nil` for events about the folder itself.
    var name: String?
}

/// The events in a buffer `read` filled from an inotify descriptor.
struct InotifyEvents: Sequence, IteratorProtocol {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    private static let headerSize = 16  // wd, mask, cookie, len: four 32-bit fields

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func next() -> InotifyEvent? {
        guard offset + Self.headerSize <= bytes.count else { return nil }
        let descriptor = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
        let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
        let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
        let nameStart = offset + Self.headerSize
        guard nameStart + length <= bytes.count else { return nil }
        let nameBytes = bytes[nameStart..<nameStart + length].prefix { $0 != 0 }
        offset = nameStart + length
        return InotifyEvent(
            descriptor: descriptor, mask: mask,
            name: nameBytes.isEmpty ? nil : String(decoding: nameBytes, as: UTF8.self))
    }
}
