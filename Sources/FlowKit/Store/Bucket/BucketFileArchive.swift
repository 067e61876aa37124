import FlowS3
import Foundation
import Synchronization

/// The archive of a store in a bucket: `PREFIX/files/SHA256`, one object per distinct file, put only when absent.
///
/// What a run writes is uploaded at its end, with its records (``BucketStore/publish(_:)``), at most
/// ``S3Client/connectionsPerEndpoint`` at once; a file is read back for the upload and sent only when it is still
/// what the store recorded, so an edit made meanwhile never reaches another machine as that node's output.
package final class BucketFileArchive: WrittenFileArchive {
    private let bucket: BucketStore
    /// The files this run wrote and recorded, by SHA-256: what the run's end uploads.
    private let written = Mutex<[String: OutputRecord]>([:])

    /// The archive of the store `bucket`.
    package init(_ bucket: BucketStore) {
        self.bucket = bucket
    }

    package var origin: String { bucket.url + "/files/" }

    package func keep(_ output: OutputRecord) {
        written.withLock { $0[output.sha256] = output }
    }

    package func holds(_ output: OutputRecord) -> Bool {
        (try? bucket.client.etag(of: object(output.sha256))) != nil
    }

    package func bytes(of output: OutputRecord) -> Result<Data, WrittenFileArchiveMiss> {
        let location = object(output.sha256)
        do throws(S3Error) {
            let bytes = try bucket.client.get(location, maxBytes: Int(output.stamp.size)).bytes
            return FolderFileArchive.checked(bytes, against: output, from: location.description)
        } catch {
            return .failure(WrittenFileArchiveMiss("cannot download \(location): \(error)"))
        }
    }

    /// Uploads the files this run recorded that the bucket does not hold yet.
    /// - Returns: How many could not be uploaded, with the first reason.
    func upload() -> (count: Int, reason: String?) {
        let files = Array(written.withLock { $0 }.values)
        let failures = Mutex<(count: Int, reason: String?)>((0, nil))
        try? bucket.forEachConcurrently(files) { [bucket] output throws(S3Error) in
            // A file changed since it was written is not this node's output any more: it stays here.
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: output.path)),
                case .success = FolderFileArchive.checked(bytes, against: output, from: output.path)
            else { return }
            do throws(S3Error) {
                try bucket.client.putIfAbsent(bytes, at: bucket.object("files/" + output.sha256))
            } catch {
                failures.withLock { $0 = ($0.count + 1, $0.reason ?? "\(error)") }
            }
        }
        return failures.withLock { $0 }
    }

    private func object(_ sha256: String) -> S3Location {
        bucket.object("files/" + sha256)
    }
}
