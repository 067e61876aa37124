import FlowS3
import Foundation
import Synchronization

/// Objects a `write` puts in a bucket, as the store records and checks them: by `ETag`, as files are by stamp.
///
/// Before a run, whether each recorded object is still the one written is told from one listing of its folder
/// (the key up to its last `/`), made once per folder and process, so checking thousands of outputs costs a
/// few list requests and no request per object.
package enum S3Outputs {
    private static let listedFolders = Mutex<Set<S3Location>>([])
    /// One listing at a time, so two checks of one folder do not both list it.
    private static let listing = Mutex(())

    /// The record of an object this process wrote, or `nil` when its `ETag` is unknown (not journaled then).
    package static func record(of location: S3Location) -> OutputRecord? {
        guard let etag = S3ObjectVersions.shared.etag(of: location) else { return nil }
        return OutputRecord(path: location.description, stamp: FileStamp(size: 0, modified: 0, inode: 0), sha256: etag)
    }

    /// Why the object no longer is what `record` says (missing, or replaced since), or `nil` when it is.
    package static func cause(_ location: S3Location, record: OutputRecord) -> RunCause? {
        guard let current = currentETag(of: location) else { return .outputMissing(path: location.description) }
        return current == record.sha256 ? nil : .outputChanged(path: location.description)
    }

    /// The object's `ETag` from a listing of its folder, or `nil` when it is missing or cannot be listed (the
    /// node then runs, and reports the real cause if it fails).
    private static func currentETag(of location: S3Location) -> String? {
        let folder = S3Location(
            bucket: location.bucket,
            key: String(
                location.key[
                    ..<(location.key.lastIndex(of: "/").map {
                        location.key.index(after: $0)
                    } ?? location.key.startIndex)]))
        listing.withLock { _ in
            guard !listedFolders.withLock({ $0.contains(folder) }),
                let client = try? S3Client.environment.get()
            else { return }
            let listed = try? client.list(bucket: folder.bucket, prefix: folder.key) {
                (page: [S3Client.ListedObject]) throws(S3Error) in
                for object in page {
                    S3ObjectVersions.shared.record(
                        object.etag, of: S3Location(bucket: folder.bucket, key: object.key))
                }
            }
            if listed != nil { listedFolders.withLock { _ = $0.insert(folder) } }
        }
        return S3ObjectVersions.shared.etag(of: location)
    }
}
