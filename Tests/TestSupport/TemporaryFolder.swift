import Foundation

/// A fresh, uniquely named folder under the system's temporary folder, removed with everything in it when the
/// value is released: every test that writes files works in one, so parallel tests never share a path.
package final class TemporaryFolder {
    /// The folder.
    package let url: URL
    /// The folder's path.
    package var path: String { url.path }

    /// Creates the folder.
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` in the folder.
    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `data` to `name` in the folder, making the folders between.
    /// - Returns: The file's path.
    @discardableResult
    package func write(_ name: String, _ data: Data) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file.path
    }

    /// Writes `text` as UTF-8 to `name` in the folder, making the folders between.
    /// - Returns: The file's path.
    @discardableResult
    package func write(_ name: String, _ text: String) throws -> String { try write(name, Data(text.utf8)) }
}
