#if canImport(Glibc)
    import Glibc
#endif

/// Reads the files a workflow is made of — the workflow itself, its `uses:` pipelines, its `forEach` list files
/// and `--env-file`s — whole, but only regular files of bounded size: a FIFO would block the load forever,
/// `/dev/zero` or a sparse file of a gigabyte would fill memory, and each failure names its real cause.
package enum DefinitionFile {
    /// The largest workflow, pipeline or env file read: far above any written by hand.
    package static let maxBytes = 16 << 20
    /// The largest `forEach` list file read: a million long paths.
    package static let maxListBytes = 256 << 20

    /// The bytes of the regular file at `path`, or why it cannot be read.
    /// - Parameter limit: The most bytes read; a larger file fails.
    package static func read(_ path: String, limit: Int = maxBytes) -> Result<[UInt8], RegularFile.Failure> {
        RegularFile.open(path).flatMap { opened in
            defer { close(opened.descriptor) }
            return RegularFile.readAll(opened.descriptor, limit: limit)
        }
    }
}
