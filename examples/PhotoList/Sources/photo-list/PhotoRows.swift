import Foundation

/// The rows of the list: the photos of the repository, over and over, one file path per row.
enum PhotoRows {
    /// The photos of `../shared/photos` beside the repository when it is there (twenty of them), else the five
    /// of `examples/photos`.
    /// - Parameter repository: The repository's root folder.
    /// - Returns: The folder and the paths of its JPEG and PNG files, in name order.
    static func photos(in repository: URL) -> (folder: URL, paths: [String]) {
        let candidates = [
            repository.deletingLastPathComponent().appendingPathComponent("shared/photos"),
            repository.appendingPathComponent("examples/photos"),
        ]
        for folder in candidates {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            let photos = names.filter { [".jpg", ".jpeg", ".png"].contains(where: $0.lowercased().hasSuffix) }
            if !photos.isEmpty { return (folder, photos.sorted().map { folder.appendingPathComponent($0).path }) }
        }
        return (candidates[1], [])
    }

    /// Writes the list the workflow's `forEach` reads: `count` rows cycling through `photos`. Each row is a file of
    /// its own in `rows/` beside the list — a hard link to its photo, or a copy where a link cannot be made — because
    /// a list's items are known by their text: the same photo on two rows must be two items.
    static func write(count: Int, cycling photos: [String], to file: URL) throws {
        let folder = file.deletingLastPathComponent().appendingPathComponent("rows")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var rows: [String] = []
        for row in 0..<count {
            let photo = URL(fileURLWithPath: photos[row % photos.count])
            let path = folder.appendingPathComponent(String(format: "row-%02d.", row) + photo.pathExtension)
            // Kept from the launch before when it is the same photo, so that the store finds its results.
            if !FileManager.default.contentsEqual(atPath: photo.path, andPath: path.path) {
                try? FileManager.default.removeItem(at: path)
                do {
                    try FileManager.default.linkItem(at: photo, to: path)
                } catch {
                    try FileManager.default.copyItem(at: photo, to: path)
                }
            }
            rows.append(path.path)
        }
        try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: file)
    }
}
