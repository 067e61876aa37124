import Dispatch
import Foundation
import SystemPackage
import Testing

@testable import FlowKit

/// The watcher on real folders: events the kernel queues while the test writes are collected by the next wait,
/// so each test changes files first and then waits, with no timing of its own.
@Suite struct FileWatcherTests {
    private let root: FilePath

    init() throws {
        root = FilePath(NSTemporaryDirectory()).appending("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: root.string, withIntermediateDirectories: true)
    }

    private func path(_ relative: String) -> FilePath { root.appending(relative) }

    private func write(_ relative: String, _ text: String = "x") throws {
        let file = path(relative)
        try FileManager.default.createDirectory(
            atPath: file.removingLastComponent().string, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file.string))
    }

    private func remove(_ relative: String) throws {
        try FileManager.default.removeItem(atPath: path(relative).string)
    }

    private func jpegTree() -> WatchSet.Tree {
        WatchSet.Tree(root: path("photos")) { $0.extension?.lowercased() == "jpg" }
    }

    /// The next changes, waited for on a thread of its own: the wait blocks, and the few threads of the test
    /// pool must stay free for the tests around it.
    private func nextChanges(_ watcher: FileWatcher, settle: Duration = .milliseconds(100)) async throws
        -> WatchChanges?
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try watcher.nextChanges(settle: settle) }) }.start()
        }
    }

    private func changed(_ watcher: FileWatcher) async throws -> [String] {
        let changes = try #require(try await nextChanges(watcher))
        let prefix = root.string + "/"
        return changes.paths.map { String($0.string.dropFirst(prefix.count)) }.sorted()
    }

    @Test func aNewPhotoAnywhereInTheTreeIsSeenAndOthersAreNot() async throws {
        defer { try? FileManager.default.removeItem(atPath: root.string) }
        try write("photos/2024/basque/bridge.jpg")
        let watcher = try FileWatcher(WatchSet(trees: [jpegTree()]))
        try write("photos/2024/basque/fig.JPG")
        try write("photos/2024/basque/notes.txt")
        try write("photos/2024/.hidden.jpg")
        #expect(try await changed(watcher) == ["photos/2024/basque/fig.JPG"])
    }

    @Test func aFolderMovedInBringsItsPhotosAndItsSubfoldersAreWatched() async throws {
        defer { try? FileManager.default.removeItem(atPath: root.string) }
        try write("photos/old.jpg")
        try write("incoming/album/a.jpg")
        try write("incoming/album/b.jpg")
        let watcher = try FileWatcher(WatchSet(trees: [jpegTree()]))
        try FileManager.default.moveItem(atPath: path("incoming/album").string, toPath: path("photos/album").string)
        #expect(try await changed(watcher) == ["photos/album/a.jpg", "photos/album/b.jpg"])
        try write("photos/album/c.jpg")
        #expect(try await changed(watcher) == ["photos/album/c.jpg"])
    }

    @Test func aBurstOfAThousandFilesIsOneSetOfChanges() async throws {
        defer { try? FileManager.default.removeItem(atPath: root.string) }
        try write("photos/first.jpg")
        let watcher = try FileWatcher(WatchSet(trees: [jpegTree()]))
        for index in 0..<1000 { try write("photos/burst/\(index).jpg") }
        #expect(try await changed(watcher).count == 1000)
    }

    @Test func aWatchedFolderDeletedAndMadeAgainIsWatchedAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: root.string) }
        try write("photos/a.jpg")
        let watcher = try FileWatcher(WatchSet(trees: [jpegTree()]))
        try remove("photos")
        #expect(try await changed(watcher) == ["photos", "photos/a.jpg"])
        try write("photos/b.jpg")
        #expect(try await changed(watcher) == ["photos/b.jpg"])
    }

    @Test func aFileSavedByRenameIsSeenAndItsNeighboursAreNot() async throws {
        defer { try? FileManager.default.removeItem(atPath: root.string) }
        try write("flow.yaml", "tasks: {}")
        let watcher = try FileWatcher(WatchSet(files: [path("flow.yaml")]))
        try write(".flow.yaml.swp", "editing")
        try write("flow.yaml.tmp", "tasks: []")
        try FileManager.default.removeItem(atPath: path("flow.yaml").string)
        try FileManager.default.moveItem(atPath: path("flow.yaml.tmp").string, toPath: path("flow.yaml").string)
        try write("other.yaml")
        #expect(try await changed(watcher) == ["flow.yaml"])
    }

    @Test func aFileWhoseFolderDoesNotExistYetIsSeenWhenItArrives() async throws {
        defer { try? FileManager.default.removeItem(atPath: root.string) }
        let watcher = try FileWatcher(WatchSet(files: [path("lists/photos.txt")]))
        try write("lists/photos.txt", "a.jpg\n")
        #expect(try await changed(watcher) == ["lists/photos.txt"])
    }

    @Test func aLinkLoopInTheTreeDoesNotHangTheWatch() async throws {
        defer { try? FileManager.default.removeItem(atPath: root.string) }
        try write("photos/a/x.jpg")
        try FileManager.default.createSymbolicLink(atPath: path("photos/a/loop").string, withDestinationPath: "..")
        let watcher = try FileWatcher(WatchSet(trees: [jpegTree()]))
        try write("photos/a/y.jpg")
        #expect(try await changed(watcher) == ["photos/a/y.jpg"])
    }

    @Test func cancellingEndsAWaitThatHasNothingToReport() async throws {
        defer { try? FileManager.default.removeItem(atPath: root.string) }
        try write("photos/a.jpg")
        let watcher = try FileWatcher(WatchSet(trees: [jpegTree()]))
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { watcher.cancel() }
        #expect(try await nextChanges(watcher) == nil)
        try write("photos/b.jpg")
        #expect(try await nextChanges(watcher) == nil)
    }

    @Test func changesKeepComingUntilTheyHaveSettled() async throws {
        defer { try? FileManager.default.removeItem(atPath: root.string) }
        try write("photos/a.jpg")
        let watcher = try FileWatcher(WatchSet(trees: [jpegTree()]))
        let writer = DispatchQueue(label: "writer")
        for step in 0..<5 {
            writer.asyncAfter(deadline: .now() + 0.05 * Double(step)) { try? write("photos/late-\(step).jpg") }
        }
        // Each write comes within the settling time of the one before, so one wait sees all five.
        let changes = try #require(try await nextChanges(watcher, settle: .seconds(2)))
        #expect(changes.paths.count == 5)
    }
}
