import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for changes to a ``WatchSet`` with inotify, without polling, and hands them over once they settle.
///
/// One thread waits at a time (``nextChanges(settle:longest:)``); any thread may ``cancel()``. Events that arrive
/// while nobody waits are kept by the kernel and collected by the next wait, so nothing written during a run is
/// missed.
///
/// ```swift
/// import SystemPackage
///
/// func watchPhotos() throws {
///     let watcher = try FileWatcher(WatchSet(trees: [.init(root: "photos")]))
///     while let changes = try watcher.nextChanges() {
///         print("\(changes.paths.count) changed")
///     }
/// }
/// ```
package final class FileWatcher: @unchecked Sendable {
    // @unchecked: the folder tables are used only by the one waiting thread; `cancel()` touches the pipe alone.
    private let inotify: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let set: WatchSet
    private var folders = WatchedFolders()
    /// What the runs wrote, as absolute paths (``ignore(_:)``): a change to one never counts.
    private var written = Set<FilePath>()
    /// The folder relative paths are taken from, for ``written``.
    private let workingFolder: FilePath = {
        guard let folder = getcwd(nil, 0) else { return FilePath("/") }
        defer { free(folder) }
        return FilePath(String(cString: folder))
    }()

    /// Starts watching: every folder of the set is watched when this returns.
    /// - Throws: ``WatchError`` when inotify cannot be used or the system's limit on watches is reached.
    package init(_ set: WatchSet) throws(WatchError) {
        self.set = set
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else { throw WatchError.system("cannot start inotify", Errno(rawValue: errno)) }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            let code = errno
            close(inotify)
            throw WatchError.system("cannot make a pipe", Errno(rawValue: code))
        }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        do {
            var ignored = WatchChanges()
            var seen = Set<FilePath>()
            try arm(reportingNewFolders: false, into: &ignored, seen: &seen)
        } catch {
            close(inotify)
            close(wakeRead)
            close(wakeWrite)
            throw error
        }
    }

    deinit {
        close(inotify)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Never counts a change to these files (absolute paths): what a run wrote. Called by the thread that waits,
    /// between waits; the events the run's writes made are read by the next wait, so none of them wakes it.
    package func ignore(_ files: some Sequence<String>) {
        for file in files { written.insert(FilePath(file).lexicallyNormalized()) }
    }

    /// Whether a change to `path` never counts: a file of ``WatchSet/ignoredFiles`` or one a run wrote.
    private func isIgnored(_ path: FilePath) -> Bool {
        let normalized = path.lexicallyNormalized()
        if set.ignoredFiles.contains(normalized) { return true }
        guard !written.isEmpty else { return false }
        return written.contains(path.isAbsolute ? normalized : workingFolder.pushing(path).lexicallyNormalized())
    }

    /// Ends the current wait, and every later one, with `nil`. Safe from any thread.
    package func cancel() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Waits for the next changes that count and returns them once no event came for `settle`, or after
    /// `longest` from the first change however busy the folders stay; `nil` once cancelled.
    package func nextChanges(
        settle: Duration = .milliseconds(200), longest: Duration = .seconds(10)
    ) throws(WatchError) -> WatchChanges? {
        var changes = WatchChanges()
        var seen = Set<FilePath>()
        while changes.isEmpty {
            guard try waitForEvents(timeout: nil) == .events else { return nil }
            try drain(into: &changes, seen: &seen)
        }
        let deadline = ContinuousClock.now + longest
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            switch try waitForEvents(timeout: min(settle, left)) {
            case .cancelled: return nil
            case .events: try drain(into: &changes, seen: &seen)
            case .timedOut: return changes
            }
        }
        return changes
    }

    private enum Wake { case events, timedOut, cancelled }

    /// Waits for events, at most `timeout` (for ever without one).
    private func waitForEvents(timeout: Duration?) throws(WatchError) -> Wake {
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        let milliseconds = timeout.map { Int32(clamping: $0.milliseconds) } ?? -1
        while true {
            let ready = poll(&descriptors, 2, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { throw WatchError.system("cannot wait for changes", Errno(rawValue: errno)) }
            if descriptors[1].revents != 0 { return .cancelled }
            return ready == 0 ? .timedOut : .events
        }
    }

    /// Reads every queued event, keeps those that count, and re-arms the watches when folders came or went.
    private func drain(into changes: inout WatchChanges, seen: inout Set<FilePath>) throws(WatchError) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var structureChanged = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN { break }
            guard count > 0 else { throw WatchError.system("cannot read changes", Errno(rawValue: errno)) }
            buffer.withUnsafeBytes { bytes in
                for event in InotifyEvents(bytes: UnsafeRawBufferPointer(rebasing: bytes[..<count])) {
                    if classify(event, into: &changes, seen: &seen) { structureChanged = true }
                }
            }
        }
        if structureChanged { try arm(reportingNewFolders: true, into: &changes, seen: &seen) }
    }

    /// Records what one event changed; `true` when folders came or went, so the watches must follow.
    private func classify(_ event: InotifyEvent, into changes: inout WatchChanges, seen: inout Set<FilePath>) -> Bool {
        if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
            changes.overflowed = true
            return true
        }
        guard let folder = folders.byDescriptor[event.descriptor] else { return false }
        if event.mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
            if !folder.trees.isEmpty { changes.insert(folder.path, seen: &seen) }
            return true
        }
        guard let name = event.name, !name.isEmpty else { return false }
        let path = folder.path.appending(name)
        if folder.files.contains(name) { changes.insert(path, seen: &seen) }
        guard !WatchedFolders.isHidden(name) else { return false }
        if event.mask & UInt32(IN_ISDIR) != 0 {
            guard !folder.trees.isEmpty || folder.awaits.contains(name) else { return false }
            if event.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0, !folder.trees.isEmpty {
                changes.insert(path, seen: &seen)
            }
            return true
        }
        if !isIgnored(path), folder.trees.contains(where: { set.trees[$0].matches(path) }) {
            changes.insert(path, seen: &seen)
        }
        return false
    }

    /// Watches every folder the set needs now, drops watches on folders it no longer needs, and (when asked)
    /// reports the matching files of folders it had not watched before: they arrived with their folder.
    private func arm(reportingNewFolders: Bool, into changes: inout WatchChanges, seen: inout Set<FilePath>)
        throws(WatchError)
    {
        var plan = WatchedFolders.Plan()
        plan.ignored = Set(set.ignoredFolders.compactMap { FileIdentity(path: WatchedFolders.systemPath($0)) })
        for file in set.files {
            plan.addFile(file)
        }
        for (index, tree) in set.trees.enumerated() {
            try plan.addTree(tree, index: index)
        }
        let previous = folders
        folders = WatchedFolders()
        for folder in plan.folders.values {
            let descriptor = inotify_add_watch(inotify, WatchedFolders.systemPath(folder.path), WatchedFolders.mask)
            guard descriptor >= 0 else {
                let code = errno
                if code == ENOENT || code == ENOTDIR || code == EACCES { continue }  // gone since the walk
                if code == ENOSPC { throw WatchError.tooManyFolders(folder.path) }
                throw WatchError.system("cannot watch \(folder.path)", Errno(rawValue: code))
            }
            folders.insert(folder, descriptor: descriptor)
            if reportingNewFolders, previous.byPath[folder.path] == nil {
                for file in WatchedFolders.files(in: folder.path) {
                    let path = folder.path.appending(file)
                    if folder.files.contains(file)
                        || (!isIgnored(path)
                            && folder.trees.contains(where: { set.trees[$0].matches(path) }))
                    {
                        changes.insert(path, seen: &seen)
                    }
                }
            }
        }
        for (descriptor, folder) in previous.byDescriptor where folders.byPath[folder.path] != descriptor {
            inotify_rm_watch(inotify, descriptor)
        }
    }
}

extension Duration {
    /// The whole milliseconds in this duration, rounded up so a short wait is never zero.
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        return seconds.multipliedReportingOverflow(by: 1000).partialValue + (attoseconds + perMillisecond - 1)
            / perMillisecond
    }
}
