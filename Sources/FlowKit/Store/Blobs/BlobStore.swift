import Crypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A stored node output, as the journal points at it: the blob's SHA-256 (its name), its size, and what the
/// task type needs to tell whether it still serves the node's consumers.
package struct BlobReference: Sendable, Equatable {
    /// The SHA-256 of the blob file, hex: its name in the store.
    package var sha256: String
    /// The blob's size in bytes.
    package var size: Int64
    /// The stored value's ``StorableOutput/variantFacts``.
    package var facts: String
    /// The choice the node made from its consumers when it made the value
    /// (``TaskType/outputVariant(facts:consumers:optimize:)``), `nil` when there is none.
    package var variant: String?

    /// Creates a reference.
    package init(sha256: String, size: Int64, facts: String = "", variant: String? = nil) {
        self.sha256 = sha256
        self.size = size
        self.facts = facts
        self.variant = variant
    }
}

/// The store's content-addressed blobs: `blobs/ab/abcdef…` under the store folder, each named by the SHA-256 of
/// its bytes, shared by every workflow of the store (equal outputs are kept once).
///
/// A blob is written to a temporary file and renamed into place, so a reader never sees half of one; it is
/// checked against its name when read, so a damaged or replaced blob is a miss — the node runs again — never a
/// wrong value. Each blob starts with a magic line and its value type's ``StorableOutput/storageTag``.
package struct BlobStore: Sendable {
    /// The blobs' folder: `blobs` in the store.
    package let directory: String

    static let magic = "flowrun blob 1"

    /// The blobs of the store in `storeDirectory`.
    package init(storeDirectory: String) {
        directory = storeDirectory + "/blobs"
    }

    /// Where the blob named `sha256` lives.
    package func path(of sha256: String) -> String {
        ContentAddressedFolder(directory: directory).path(of: sha256)
    }

    /// Writes a value as a blob, atomically.
    /// - Returns: Its reference (without variant).
    /// - Throws: ``BlobError`` when the folder cannot be created or the disk is full; nothing is left behind.
    package func write(_ value: any StorableOutput) throws(BlobError) -> BlobReference {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw BlobError("cannot create \(directory): \(String(cString: strerror(RunStore.errorCode(of: error))))")
        }
        let temporary: WriteTemporaries.Temporary
        do {
            temporary = try WriteTemporaries.create(for: Self.temporaryName, in: directory)
        } catch {
            throw BlobError("cannot create a blob in \(directory): \(error)")
        }
        // Closed (and so unlocked) only once renamed: until then a sweep must see a live writer.
        defer { close(temporary.descriptor) }
        do {
            var writer = BlobWriter(descriptor: temporary.descriptor)
            writer.string(Self.magic)
            writer.string(type(of: value).storageTag)
            try value.store(into: &writer)
            let (sha256, size) = try writer.finish()
            let final = path(of: sha256)
            guard mkdir(FilePaths.folder(of: final), 0o755) == 0 || errno == EEXIST,
                rename(temporary.path, final) == 0
            else {
                throw BlobError(Self.reason())
            }
            return BlobReference(sha256: sha256, size: size, facts: value.variantFacts)
        } catch {
            unlink(temporary.path)
            throw BlobError("cannot write a blob in \(directory): \(error)")
        }
    }

    /// Why a blob cannot be read back as a `type`, or `nil` when it is there, complete, its content matches its
    /// name and it holds a value of that type.
    package func problem(with reference: BlobReference, as type: any StorableOutput.Type) -> String? {
        switch check(reference, as: type) {
        case .success: nil
        case .failure(let error): error.description
        }
    }

    /// Checks a blob as ``problem(with:as:)`` does; on success, the stamp of the file checked, which
    /// ``read(_:as:verified:)`` takes to skip hashing the same file again.
    package func check(_ reference: BlobReference, as type: any StorableOutput.Type) -> Result<FileStamp, BlobError> {
        do {
            let (bytes, stamp) = try load(reference, verified: nil).get()
            var reader = BlobReader(bytes[...])
            try Self.readHeader(&reader, as: type)
            return .success(stamp)
        } catch {
            return .failure(error)
        }
    }

    /// Checks several blobs at once, on every core (each is read whole and hashed).
    package func check(_ blobs: [(reference: BlobReference, type: any StorableOutput.Type)]) -> [Result<
        FileStamp, BlobError
    >] {
        let results = Mutex([Result<FileStamp, BlobError>?](repeating: nil, count: blobs.count))
        DispatchQueue.concurrentPerform(iterations: blobs.count) { index in
            let result = check(blobs[index].reference, as: blobs[index].type)
            results.withLock { $0[index] = result }
        }
        return results.withLock { $0 }.map { $0 ?? .failure(BlobError("not checked")) }
    }

    private static func readHeader(_ reader: inout BlobReader, as type: any StorableOutput.Type) throws(BlobError) {
        guard try reader.string() == magic else { throw BlobError("not a blob of this flowrun") }
        let tag = try reader.string()
        guard tag == type.storageTag else { throw BlobError("it holds '\(tag)', not '\(type.storageTag)'") }
    }

    /// Reads a blob back as a value of `type`, checking its SHA-256 against its name first — unless it is the
    /// very file ``check(_:as:)`` hashed before (the same stamp: size, modification time, inode).
    /// - Throws: ``BlobError`` saying what is wrong: missing, truncated, damaged, another type.
    package func read(_ reference: BlobReference, as type: any StorableOutput.Type, verified: FileStamp? = nil)
        throws(BlobError) -> any StorableOutput
    {
        let bytes = try load(reference, verified: verified).get().bytes
        var reader = BlobReader(bytes[...])
        try Self.readHeader(&reader, as: type)
        let value = try type.init(restoring: &reader)
        guard reader.isAtEnd else { throw BlobError("it has bytes after its value") }
        return value
    }

    /// The blob's bytes, once checked against its name and size, and the file's stamp.
    private func load(_ reference: BlobReference, verified: FileStamp?) -> Result<
        (bytes: [UInt8], stamp: FileStamp), BlobError
    > {
        let path = path(of: reference.sha256)
        let opened: RegularFile.Opened
        switch RegularFile.open(path, owned: true) {
        case .success(let file): opened = file
        case .failure(let failure) where failure.isMissing: return .failure(BlobError("blob \(path) is missing"))
        case .failure(let failure): return .failure(BlobError("cannot read \(path): \(failure.reason)"))
        }
        let descriptor = opened.descriptor
        defer { close(descriptor) }
        let info = opened.status
        guard Int64(info.st_size) == reference.size else {
            return .failure(BlobError("blob \(path) has \(info.st_size) bytes, not \(reference.size)"))
        }
        let stamp = FileStamp(info)
        let count = Int(reference.size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let result = Glibc.read(descriptor, buffer.baseAddress.map { $0 + done }, count - done)
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { break }
                done += result
            }
            failed = done < count
            initialized = failed ? 0 : count
        }
        if failed { return .failure(BlobError("cannot read \(path) whole")) }
        guard stamp == verified || ContentDigest.of(bytes) == reference.sha256 else {
            return .failure(BlobError("blob \(path) is damaged: its SHA-256 does not match its name"))
        }
        return .success((bytes, stamp))
    }

    private static func reason() -> String { String(cString: strerror(errno)) }

    // MARK: Maintenance

    /// Every blob in the store: its name and size. Only files named as blobs count (``isBlobName(_:in:)``).
    package func all() -> [(sha256: String, size: Int64)] {
        ContentAddressedFolder(directory: directory).all()
    }

    /// Removes every blob not in `kept`, and temporaries a killed run left; returns how many blobs it removed.
    /// Only blobs: a file of another name is never removed.
    @discardableResult
    package func removeAll(except kept: Set<String>) -> Int {
        let removed = ContentAddressedFolder(directory: directory).removeAll(except: kept)
        removeStaleTemporaries()
        return removed
    }

    /// The entries of the blobs' folder the store did not make, as paths below it: what is neither a blob, a
    /// folder of blobs nor a temporary of either. `cache clean` refuses to clean a folder that holds any.
    package func strangers() -> [String] {
        let manager = FileManager.default
        guard let folders = try? manager.contentsOfDirectory(atPath: directory) else { return [] }
        var found: [String] = []
        for entry in folders.sorted() {
            guard Self.isBlobFolder(entry) else {
                if !WriteTemporaries.isTemporary(entry, of: Self.temporaryName) { found.append(entry) }
                continue
            }
            for name in ((try? manager.contentsOfDirectory(atPath: directory + "/" + entry)) ?? []).sorted() {
                // What a pull from a bucket by an earlier flowrun left (it wrote beside the blob).
                let pulled = name.dropFirst(WriteTemporaries.prefix.count).dropLast(WriteTemporaries.randomLength + 1)
                guard !Self.isBlobName(name, in: entry),
                    !(Self.isBlobName(String(pulled), in: entry)
                        && WriteTemporaries.isTemporary(name, of: String(pulled)))
                else { continue }
                found.append(entry + "/" + name)
            }
        }
        return found
    }

    /// Whether `name` is a folder of blobs: two lowercase hex digits.
    static func isBlobFolder(_ name: String) -> Bool {
        name.utf8.count == 2 && name.utf8.allSatisfy(isLowercaseHex)
    }

    /// Whether `name` in the folder `folder` is a blob's: 64 lowercase hex digits, the first two the folder's.
    static func isBlobName(_ name: String, in folder: String) -> Bool {
        name.utf8.count == 64 && name.hasPrefix(folder) && name.utf8.allSatisfy(isLowercaseHex)
    }

    static func isLowercaseHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// The name blob temporaries are made for (``WriteTemporaries``): `blobs/.flowrun-blob.XXXXXX`, renamed to the
    /// blob's name once hashed.
    static let temporaryName = "blob"

    /// Removes the temporaries a killed writer left. Every run that opens the store calls it; the temporary of a
    /// live writer — another workflow's run on the same store — is locked, so it stays.
    package func removeStaleTemporaries() {
        WriteTemporaries.removeStale(ofFilesNamed: [Self.temporaryName], in: directory)
    }
}
