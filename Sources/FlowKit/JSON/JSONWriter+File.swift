import FlowBasics

extension JSONWriter {
    /// Writes to `path`, replaced when ``JSONWriter/commit()`` is called; a FIFO or character device
    /// (`/dev/stdout`, `/dev/null`) is written into as it is. Temporaries a killed writer left of `path` are removed
    /// first.
    /// - Throws: ``FileWriteError``, e.g. when the folder does not exist or `path` is a folder; so does `commit()`.
    package init(path: String) throws(FileWriteError) {
        WriteTemporaries.removeStale(of: [path])
        self.init(output: try AtomicFile(path: path, specialFiles: .streamInto))
    }
}

/// A JSON document (or the `--html` page, or a JUnit report) streamed to a file: the writer's buffers go to the
/// temporary, which its `commit()` moves into place.
extension AtomicFile: JSONWriterOutput {
    package func writeOutput(_ bytes: UnsafeRawBufferPointer) throws { try write(bytes) }

    package func commitOutput() throws { try commit() }

    package func discardOutput() { discard() }
}
