import Glibc

/// Lists the files that `forEach: { glob: … }` patterns name in a folder tree, with `opendir`/`readdir`.
///
/// A walk starts at each pattern's ``GlobPattern/base`` and descends only into folders that may hold matches
/// and that no exclude pattern matches; hidden entries are passed by unless a pattern names them (the pattern
/// decides). Symbolic links are followed when they lead somewhere inside the pattern's base — the folder the
/// pattern names — and a folder already seen (by device and inode) is not entered twice, so a link loop
/// ends. A folder that cannot be read is a warning and the walk goes on. The result is sorted by the bytes of
/// its paths, the same on every machine.
struct GlobWalker {
    /// A file found, named as the pattern names it (relative to the workflow's folder unless absolute).
    struct Match: Equatable {
        var path: String
        /// The base of the first pattern that matched it, which `${item.rel}` is relative to.
        var base: String
    }

    /// What went wrong or was left out on the way, for warnings; the walk goes on.
    enum Note: Equatable {
        case unreadable(folder: String, reason: String)
        case linkOutside(path: String)
        case notUTF8(folder: String)
    }

    let includes: [GlobPattern]
    let excludes: [GlobPattern]
    /// The workflow's folder; relative patterns are taken from it.
    let directory: String
    /// The most matches to collect; one more stops the walk.
    var limit = Int.max

    /// The matches of every include pattern that no exclude pattern matches, and what was left out.
    func walk() -> (matches: [Match], notes: [Note]) {
        var matches: [Match] = []
        // One pattern names each file once (a folder is walked once): what was found is remembered only where
        // several patterns may name one file.
        var found: Set<String>? = includes.count > 1 ? [] : nil
        var notes: [Note] = []
        for pattern in includes {
            var visited = Set<FileIdentity>()
            walk(pattern, into: &matches, found: &found, visited: &visited, notes: &notes)
            if matches.count > limit { break }
        }
        // Folders are read in byte order, so the files of one folder come sorted: sorted again only when not.
        let inOrder = matches.indices.dropFirst().allSatisfy {
            Self.precedesByBytes(matches[$0 - 1].path, matches[$0].path)
        }
        if !inOrder { matches.sort { Self.precedesByBytes($0.path, $1.path) } }
        return (matches, notes)
    }

    /// The deepest folder of a pattern's base that exists, as the pattern names it ("." for the workflow's own).
    func nearestExistingFolder(of pattern: GlobPattern) -> String {
        var parts = pattern.base.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let prefix = pattern.base.hasPrefix("/") ? "/" : ""
        while !parts.isEmpty {
            let named = prefix + parts.joined(separator: "/")
            if isFolder(onDisk(named)) { return named }
            parts.removeLast()
        }
        return prefix.isEmpty ? "." : "/"
    }

    // MARK: - Walking

    private func walk(
        _ pattern: GlobPattern, into matches: inout [Match], found: inout Set<String>?,
        visited: inout Set<FileIdentity>, notes: inout [Note]
    ) {
        let root = onDisk(pattern.base)
        // Links may lead anywhere inside the folder the pattern names, and nowhere else.
        guard let realRoot = realPath(root) else { return }
        let base = pattern.base.split(separator: "/", omittingEmptySubsequences: true)
        var start = pattern.start
        for segment in (pattern.base.hasPrefix("/") ? [""] : []) + base {
            start = pattern.position(start, after: segment)
        }
        // Each folder with where the pattern stands there: an entry is matched by one step, not from the top.
        var pending = [(folder: pattern.base, position: start)]
        while let (folder, position) = pending.popLast() {
            let path = onDisk(folder)
            guard let handle = opendir(path) else {
                notes.append(
                    .unreadable(folder: folder.isEmpty ? "." : folder, reason: String(cString: strerror(errno))))
                continue
            }
            defer { closedir(handle) }
            let descriptor = dirfd(handle)
            var status = stat()
            guard fstat(descriptor, &status) == 0,
                visited.insert(FileIdentity(status)).inserted
            else { continue }
            // In byte order, and folders walked in that order: where one folder is reached by two paths (a
            // link), the same one wins on every machine.
            var folders: [(String, GlobPattern.Position)] = []
            for (name, type) in entries(of: handle, folder: folder, notes: &notes) {
                let next = pattern.position(position, after: Substring(name))
                if next.isDead { continue }
                let named = folder.isEmpty ? name : (folder.hasSuffix("/") ? folder + name : folder + "/" + name)
                guard let kind = kind(of: type, name: name, in: descriptor) else { continue }
                let accepted = !kind.isFolder && pattern.accepts(next)
                let descends = kind.isFolder && pattern.mayMatchBelow(next)
                guard accepted || descends else { continue }
                if kind.isLink, let target = realPath(onDisk(named)), !isInside(target, realRoot) {
                    notes.append(.linkOutside(path: named))
                    continue
                }
                if excludes.contains(where: { $0.matches(named) }) { continue }
                if descends {
                    folders.append((named, next))
                } else if found?.insert(named).inserted ?? true {
                    matches.append(Match(path: named, base: pattern.base))
                    if matches.count > limit { return }
                }
            }
            pending.append(contentsOf: folders.reversed())
        }
    }

    /// A folder's entries other than `.` and `..`, sorted by their bytes, with their `d_type`.
    private func entries(of handle: OpaquePointer, folder: String, notes: inout [Note]) -> [(String, UInt8)] {
        var result: [SortedEntry] = []
        while let entry = readdir(handle) {
            let read = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    name in String(validatingCString: name).map { ($0, SortedEntry.Prefix(name)) }
                }
            }
            guard let (name, prefix) = read else {
                notes.append(.notUTF8(folder: folder.isEmpty ? "." : folder))
                continue
            }
            if name != "." && name != ".." {
                result.append(SortedEntry(name: name, type: entry.pointee.d_type, prefix: prefix))
            }
        }
        result.sort { $0.prefix == $1.prefix ? Self.precedesByBytes($0.name, $1.name) : $0.prefix < $1.prefix }
        return result.map { ($0.name, $0.type) }
    }

    /// An entry with the first bytes of its name as two numbers, which order as the bytes do: a folder of
    /// 100,000 files is sorted comparing numbers, and names only where their first 16 bytes are the same.
    private struct SortedEntry {
        /// The first 16 bytes of a name, big-endian, zero after its end (a name holds no zero byte).
        struct Prefix: Comparable {
            var high: UInt64
            var low: UInt64

            init(_ name: UnsafePointer<CChar>) {
                var bytes = (UInt64(0), UInt64(0))
                withUnsafeMutableBytes(of: &bytes) { buffer in
                    for offset in 0..<16 {
                        let byte = UInt8(bitPattern: name[offset])
                        if byte == 0 { break }
                        buffer[offset] = byte
                    }
                }
                high = UInt64(bigEndian: bytes.0)
                low = UInt64(bigEndian: bytes.1)
            }

            static func < (left: Prefix, right: Prefix) -> Bool {
                (left.high, left.low) < (right.high, right.low)
            }
        }

        var name: String
        var type: UInt8
        var prefix: Prefix
    }

    /// Whether `left` sorts before `right` by their UTF-8 bytes (what `utf8.lexicographicallyPrecedes` says),
    /// compared with `memcmp`: a glob of 100,000 files sorts its matches twice.
    static func precedesByBytes(_ left: String, _ right: String) -> Bool {
        var left = left
        var right = right
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in
                let common = min(leftBytes.count, rightBytes.count)
                if common > 0, let leftStart = leftBytes.baseAddress, let rightStart = rightBytes.baseAddress {
                    let order = memcmp(leftStart, rightStart, common)
                    if order != 0 { return order < 0 }
                }
                return leftBytes.count < rightBytes.count
            }
        }
    }

    private struct Kind {
        var isFolder: Bool
        var isLink: Bool
    }

    /// What an entry is, from `d_type` when the file system gives it, else from `fstatat`; a link is
    /// described by what it points to. `nil` for a dangling link or an entry that vanished.
    private func kind(of type: UInt8, name: String, in descriptor: Int32) -> Kind? {
        switch Int(type) {
        case Int(DT_DIR): return Kind(isFolder: true, isLink: false)
        case Int(DT_REG): return Kind(isFolder: false, isLink: false)
        default:
            var status = stat()
            guard fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
            let isLink = status.st_mode & S_IFMT == S_IFLNK
            if isLink, fstatat(descriptor, name, &status, 0) != 0 { return nil }
            return Kind(isFolder: status.st_mode & S_IFMT == S_IFDIR, isLink: isLink)
        }
    }

    /// A path as the pattern names it, on disk: taken from the workflow's folder unless absolute.
    private func onDisk(_ named: String) -> String {
        if named.hasPrefix("/") { return named }
        if named.isEmpty { return directory.isEmpty ? "." : directory }
        return directory.isEmpty || directory == "." ? named : directory + "/" + named
    }

    private func isFolder(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    private func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private func isInside(_ path: String, _ root: String) -> Bool {
        path == root || path.hasPrefix(root == "/" ? "/" : root + "/")
    }
}
