import FlowKit
import Foundation

/// Outputs kept as a run's store keeps them, for the tests of a task type's ``StorableOutput`` conformance.
public enum StoredOutputs {
    /// `value` written as a blob of a throwaway store and read back, as a later run reads it.
    /// - Throws: ``BlobError`` when it cannot be written or read back as a `Value`.
    public static func roundTrip<Value: StorableOutput>(_ value: Value) throws -> Value {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let blobs = BlobStore(storeDirectory: folder.path)
        let reference = try blobs.write(value)
        guard let restored = try blobs.read(reference, as: Value.self) as? Value else {
            throw BlobError("the blob read back is not a \(Value.self)")
        }
        return restored
    }
}
