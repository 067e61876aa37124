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
    /// The files the bucket is known to hold, by SHA-256: those the records pulled name, less any that could not
    /// be downloaded in this run. They are not uploaded again (a rerun that makes 10,000 files the bucket has
    /// would otherwise ask 10,000 times).
    private let present: Mutex<Set<String>>
    /// The files whose object in the bucket did not hold what its name says: this run's copy replaces it.
    private let damaged = Mutex<Set<String>>([])

    /// The archive of the store `bucket`.
    /// - Parameter present: The files the bucket holds (``BucketStore/pull(workflowName:_:)``).
    package init(_ bucket: BucketStore, holding present: Set<String> = []) {
        self.bucket = bucket
        self.present = Mutex(present)
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
            let checked = FolderFileArchive.checked(bytes, against: output, from: location.description)
            if case .failure = checked {
                _ = present.withLock { $0.remove(output.sha256) }
                _ = damaged.withLock { $0.insert(output.sha256) }
            }
            return checked
        } catch {
            // Gone or unreadable: the file this run makes instead goes up.
            _ = present.withLock { $0.remove(output.sha256) }
            return .failure(WrittenFileArchiveMiss("cannot download \(location): \(error)"))
        }
    }

    /// Uploads the files this run recorded that the bucket does not hold yet.
    /// - Returns: How many could not be uploaded, with the first reason.
    func upload() -> (count: Int, reason: String?) {
        let known = present.withLock { $0 }
        let replaced = damaged.withLock { $0 }
        let files = written.withLock { $0 }.values.filter { !known.contains($0.sha256) }
        let failures = Mutex<(count: Int, reason: String?)>((0, nil))
        try? bucket.forEachConcurrently(files) { [bucket] output throws(S3Error) in
            // A file changed since it was written is not this node's output any more: it stays here.
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: output.path)),
                case .success = FolderFileArchive.checked(bytes, against: output, from: output.path)
            else { return }
            do throws(S3Error) {
                let object = bucket.object("files/" + output.sha256)
                if replaced.contains(output.sha256) {
                    try bucket.client.put(bytes, at: object)
                } else {
                    try bucket.client.putIfAbsent(bytes, at: object)
                }
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
