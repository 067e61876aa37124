/// A file a node wrote.
public struct FileOutput: Sendable, Hashable {
    /// The path of the file, as written (relative paths are relative to the workflow's folder).
    public var path: String
    /// The number of bytes written.
    public var byteCount: Int

    /// Creates a file output.
    public init(path: String, byteCount: Int) {
        self.path = path
        self.byteCount = byteCount
    }
}

/// An operation whose output is a file on disk: kind ``ProviderKind/file`` (`write`), or a local file another
/// kind was read from (a `fetch` of a path), which a command's `${inputs}` names.
public protocol FileProvider: AnyObject, Sendable {
    /// The file this operation wrote.
    var providedFile: FileOutput? { get }
}
