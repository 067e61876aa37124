import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A folder of files named by the SHA-256 of their content, `ab/abcdef…` (64 lowercase hex digits in a folder of
/// their first two): the store's blobs and its copies of written files. Only files named so count: nothing else in
/// the folder is ever listed or removed.
struct ContentAddressedFolder {
    /// The folder.
    let directory: String

    /// Where the file named `sha256` lives.
    func path(of sha256: String) -> String {
        directory + "/" + sha256.prefix(2) + "/" + sha256
    }

    /// Every file of the folder: its name and size.
    func all() -> [(sha256: String, size: Int64)] {
        let manager = FileManager.default
        guard let folders = try? manager.contentsOfDirectory(atPath: directory) else { return [] }
        var files: [(String, Int64)] = []
        for folder in folders where BlobStore.isBlobFolder(folder) {
            for name in (try? manager.contentsOfDirectory(atPath: directory + "/" + folder)) ?? []
            where BlobStore.isBlobName(name, in: folder) {
                if let stamp = FileStamp(path: directory + "/" + folder + "/" + name) {
                    files.append((name, stamp.size))
                }
            }
        }
        return files
    }

    /// Removes every file not in `kept`; returns how many it removed.
    func removeAll(except kept: Set<String>) -> Int {
        var removed = 0
        for file in all() where !kept.contains(file.sha256) {
            if unlink(path(of: file.sha256)) == 0 { removed += 1 }
        }
        return removed
    }
}
