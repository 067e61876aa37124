import Crypto
import Foundation

/// Reads a `fetch` source from disk, bounded by `maxBytes`.
struct FetchFileReader {
    /// The resolved path.
    var path: String
    /// The `url` parameter as written, for the payload's source and messages.
    var written: String
    var maxBytes: Int
    var context: NodeContext

    /// The name in the missing file's folder closest to its own (`Wine.JPG` → `wine.jpg`), if any is close.
    /// Folders of more than 10,000 entries are not searched: a failure should not cost a long scan.
    static func closestSibling(of path: String) -> String? {
        let url = URL(fileURLWithPath: path)
        guard
            let names = try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path),
            names.count <= 10_000
        else { return nil }
        return Suggestion.closest(to: url.lastPathComponent, in: names)
    }

    /// Reads in 1 MiB chunks so cancellation is seen between chunks.
    static let chunkSize = 1 << 20

    /// Reads the file, or fails with a message naming the path; with the bytes, what was read for the store: the
    /// opened file's stamp and the digest of its bytes, hashed as they arrive (``SourceFileRecord``).
    func read(isCancelled: () -> Bool) -> (outcome: FlowOperation.Outcome, read: SourceFileRecord?) {
        var hasher = SHA256()
        var stamp: FileStamp?
        let outcome = read(isCancelled: isCancelled, opened: { stamp = $0 }, chunk: { hasher.update(data: $0) })
        guard case .success = outcome, let stamp else { return (outcome, nil) }
        return (outcome, SourceFileRecord(stamp: stamp, sha256: NodeKey(hasher.finalize())))
    }

    private func read(isCancelled: () -> Bool, opened stamped: (FileStamp) -> Void, chunk hashed: (Data) -> Void)
        -> FlowOperation.Outcome
    {
        let shown = path == written ? "'\(written)'" : "'\(written)' (\(path))"
        // Opened first and asked of its descriptor: one path lookup, where `fileExists` and `attributesOfItem`
        // took two more and the owner's name from the user database. Only a regular file: a FIFO would block
        // this read past the node's timeout and a cancellation, a device never ends.
        let opened: RegularFile.Opened
        switch RegularFile.open(path) {
        case .success(let file): opened = file
        case .failure(let failure) where failure.isMissing:
            let suggestion = Self.closestSibling(of: path).map { " (did you mean '\($0)'?)" } ?? ""
            return .failure(context.failure(.io, "no such file: \(shown)\(suggestion)").permanent())
        case .failure(let failure) where failure.isFolder:
            return .failure(context.failure(.io, "\(shown) is a directory, not a file").permanent())
        case .failure(let failure):
            return .failure(context.failure(.io, "cannot read \(shown): \(failure.reason)").permanent())
        }
        stamped(FileStamp(opened.status))
        let handle = FileHandle(fileDescriptor: opened.descriptor, closeOnDealloc: true)
        defer { try? handle.close() }
        // The size first, so an oversized file is refused without reading it. The read below enforces the bound
        // again, for a file that grows meanwhile.
        if Int(opened.status.st_size) > maxBytes {
            return .failure(
                context.failure(
                    .tooLarge, "\(shown) is \(opened.status.st_size) bytes, more than maxBytes (\(maxBytes))"))
        }
        var bytes = Data()
        do {
            while true {
                if isCancelled() { return .cancelled }
                // Ask for one byte past the limit so a file that grew since the size check is still caught.
                let want = min(Self.chunkSize, maxBytes + 1 - bytes.count)
                guard let chunk = try handle.read(upToCount: want), !chunk.isEmpty else { break }
                hashed(chunk)
                bytes.append(chunk)
                if bytes.count > maxBytes {
                    return .failure(context.failure(.tooLarge, "\(shown) is larger than maxBytes (\(maxBytes))"))
                }
            }
        } catch {
            return .failure(context.failure(.io, "cannot read \(shown): \(Self.reason(error))", cause: error))
        }
        return .success(DataPayload(bytes, source: written))
    }

    /// The POSIX reason of a Foundation file error, when there is one ("Permission denied").
    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return nsError.localizedDescription
    }
}
