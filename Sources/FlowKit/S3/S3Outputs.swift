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

    /// What a bucket holds at a location an earlier run wrote, as `clean --stale` needs to know it.
    package enum Found: Equatable {
        /// An object with this `ETag`.
        case object(etag: String)
        /// Nothing.
        case missing
        /// The bucket could not be listed (no S3 settings, a server that does not answer).
        case unknown
    }

    /// What is at `location` now, from the listing of its folder (one per folder and process, as for runs).
    package static func found(at location: S3Location) -> Found {
        guard listFolder(of: location) else { return .unknown }
        return S3ObjectVersions.shared.etag(of: location).map { .object(etag: $0) } ?? .missing
    }

    /// Deletes the object at `location` if it still has `etag` (``S3Client/delete(_:ifMatch:cancellation:)``).
    /// - Returns: Whether it was deleted.
    package static func remove(_ location: S3Location, ifMatch etag: String) -> Bool {
        guard let client = try? S3Client.environment.get() else { return false }
        do throws(S3Error) {
            try client.delete(location, ifMatch: etag)
            return true
        } catch {
            return false
        }
    }

    /// The object's `ETag` from a listing of its folder, or `nil` when it is missing or cannot be listed (the
    /// node then runs, and reports the real cause if it fails).
    private static func currentETag(of location: S3Location) -> String? {
        _ = listFolder(of: location)
        return S3ObjectVersions.shared.etag(of: location)
    }

    /// Lists the folder of `location` (the key up to its last `/`) unless this process did, recording each
    /// object's `ETag`.
    /// - Returns: Whether the folder is listed: `false` when the bucket cannot be reached.
    private static func listFolder(of location: S3Location) -> Bool {
        let folder = S3Location(
            bucket: location.bucket,
            key: String(
                location.key[
                    ..<(location.key.lastIndex(of: "/").map {
                        location.key.index(after: $0)
                    } ?? location.key.startIndex)]))
        return listing.withLock { _ in
            if listedFolders.withLock({ $0.contains(folder) }) { return true }
            guard let client = try? S3Client.environment.get() else { return false }
            let listed = try? client.list(bucket: folder.bucket, prefix: folder.key) {
                (page: [S3Client.ListedObject]) throws(S3Error) in
                for object in page {
                    S3ObjectVersions.shared.record(
                        object.etag, of: S3Location(bucket: folder.bucket, key: object.key))
                }
            }
            guard listed != nil else { return false }
            listedFolders.withLock { _ = $0.insert(folder) }
            return true
        }
    }
}
