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

    /// Writes the list the workflow's `forEach` reads: `count` rows cycling through `photos`.
    static func write(count: Int, cycling photos: [String], to file: URL) throws {
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let rows = (0..<count).map { photos[$0 % photos.count] }
        try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: file)
    }
}
