import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a store keeps copies of the files its `write`s made, each named by its SHA-256, so that a file that went
/// missing — a fresh checkout, a `rm -r public/` — is put back as recorded instead of being made again with its
/// whole upstream chain (``WrittenFileRestore``).
///
/// Copies are content-addressed: equal files are kept once, and a copy is checked against its name when it is
/// read back, so a damaged or replaced one is a miss (the node runs), never a wrong file.
package protocol WrittenFileArchive: Sendable {
    /// Where restored files come from, as messages name it: a folder, or `s3://bucket/prefix/files/`.
    var origin: String { get }
    /// Keeps a copy of a file a node wrote in this run, as the store recorded it. A copy that cannot be kept is
    /// a warning at most: the run's own output is in place, and a later run makes it again if it goes.
    func keep(_ output: OutputRecord)
    /// Whether the archive holds the file recorded, without reading it (what a dry run predicts from).
    func holds(_ output: OutputRecord) -> Bool
    /// The recorded file's bytes, checked against its size and SHA-256; the failure says why there are none.
    func bytes(of output: OutputRecord) -> Result<Data, WrittenFileArchiveMiss>
}

/// Why an archive has no usable copy of a file: missing, unreadable, or not what was recorded.
package struct WrittenFileArchiveMiss: Error, Sendable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// The archive of a store on this machine: `files/ab/abcdef…` under the store folder (`--keep-outputs`).
package struct FolderFileArchive: WrittenFileArchive {
    /// The copies' folder: `files` in the store.
    package let directory: String
    private let warn: @Sendable (String) -> Void

    /// The archive of the store in `storeDirectory`.
    package init(storeDirectory: String, warn: @escaping @Sendable (String) -> Void = { _ in }) {
        directory = storeDirectory + "/files"
        self.warn = warn
    }

    /// Where the copy named `sha256` lives.
    package func path(of sha256: String) -> String {
        ContentAddressedFolder(directory: directory).path(of: sha256)
    }

    package var origin: String { directory }

    package func keep(_ output: OutputRecord) {
        let copy = path(of: output.sha256)
        if let stamp = FileStamp(path: copy), stamp.size == output.stamp.size { return }
        // Read back rather than taken from the node: what is kept is checked to be what was recorded.
        guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: output.path)),
            ContentDigest.of(bytes) == output.sha256
        else { return }
        do {
            let file = try AtomicFile(path: copy, createFolders: true)
            try file.write(bytes)
            try file.commit()
        } catch {
            warn("cannot keep a copy of \(output.path) in \(directory): \(error); it is not restored if it goes")
        }
    }

    package func holds(_ output: OutputRecord) -> Bool {
        FileStamp(path: path(of: output.sha256))?.size == output.stamp.size
    }

    package func bytes(of output: OutputRecord) -> Result<Data, WrittenFileArchiveMiss> {
        let copy = path(of: output.sha256)
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
        } catch {
            return .failure(WrittenFileArchiveMiss("no copy at \(copy)"))
        }
        return Self.checked(bytes, against: output, from: copy)
    }

    /// `bytes` when they are the file recorded: its size and SHA-256.
    static func checked(_ bytes: Data, against output: OutputRecord, from origin: String) -> Result<
        Data, WrittenFileArchiveMiss
    > {
        guard Int64(bytes.count) == output.stamp.size else {
            return .failure(
                WrittenFileArchiveMiss("\(origin) has \(bytes.count) bytes, not the \(output.stamp.size) recorded"))
        }
        guard ContentDigest.of(bytes) == output.sha256 else {
            return .failure(WrittenFileArchiveMiss("\(origin) is damaged: its SHA-256 does not match its name"))
        }
        return .success(bytes)
    }

    /// Every copy in the archive: its name and size. Only files named as copies count.
    package func all() -> [(sha256: String, size: Int64)] {
        ContentAddressedFolder(directory: directory).all()
    }

    /// Removes every copy not in `kept`, and the temporaries a killed run left; returns how many it removed.
    @discardableResult
    package func removeAll(except kept: Set<String>) -> Int {
        let removed = ContentAddressedFolder(directory: directory).removeAll(except: kept)
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where BlobStore.isBlobFolder(folder) {
            _ = WriteTemporaries.removeStale(in: directory + "/" + folder) { BlobStore.isBlobName($0, in: folder) }
        }
        return removed
    }
}
