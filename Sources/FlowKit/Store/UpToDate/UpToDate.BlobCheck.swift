import Foundation

extension UpToDate {
    /// The step of the decisions that checks stored outputs (read whole and hashed), each blob once.
    ///
    /// A pass of the decisions asks about each blob it would rest on. One not checked yet counts as intact and is
    /// noted; ``checkPending()`` then checks all of those at once, on every core, and the decisions are made
    /// again until a pass asks about no blob left unchecked — twice in all, unless a blob was found damaged and a
    /// node that runs because of it needs another's.
    struct BlobCheck {
        /// Where the blobs are; `nil` checks nothing (every blob counts as intact).
        let blobs: BlobStore?
        /// The blobs checked, by name.
        private(set) var checked: [String: Result<FileStamp, BlobError>] = [:]
        /// The blobs asked about and not checked yet, by name.
        private var pending: [String: (reference: BlobReference, type: any StorableOutput.Type)] = [:]

        init(blobs: BlobStore?) { self.blobs = blobs }

        /// Why a stored output cannot be read back as `type`: `nil` when it is intact or not checked yet (it is
        /// then noted for ``checkPending()``).
        mutating func problem(with blob: BlobReference, as type: any StorableOutput.Type) -> String? {
            guard let result = checked[blob.sha256] else {
                pending[blob.sha256] = (blob, type)
                return nil
            }
            if case .failure(let error) = result { return error.description }
            return nil
        }

        /// Checks the blobs asked about since the last call.
        /// - Returns: Whether any was checked: decisions that took them as intact must be made again.
        mutating func checkPending() -> Bool {
            guard let blobs, !pending.isEmpty else { return false }
            let batch = Array(pending.values)
            for (blob, result) in zip(batch, blobs.check(batch)) { checked[blob.reference.sha256] = result }
            pending = [:]
            return true
        }

        /// The stamps of the blobs found intact, by name: a restore reads the same file without hashing it again.
        var verified: [String: FileStamp] { checked.compactMapValues { try? $0.get() } }
    }
}
