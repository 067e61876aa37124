import FlowKit
import Foundation

/// `checksum`: the CRC-32 of its input data, as a line of text (`crc32 cbf43926  photo.jpg`), so a
/// workflow can write a manifest of what it fetched. A data task: no image involved.
public struct ChecksumTask: TaskType {
    public init() {}
    public var name: String { "checksum" }
    public var summary: String { "Computes the CRC-32 of its input data, as a line of text." }

    /// The parameters of ``ChecksumTask``.
    public struct Parameters: TaskParameters {
        @Parameter(help: "Print hex digits in upper case.")
        public var uppercase = false
        public init() {}
    }

    public var consumes: InputRequirement { .oneOf([.data]) }
    public var provides: ProviderKind? { .data }
    public func makeOperation(_ context: NodeContext) -> FlowOperation { ChecksumOperation(context: context) }
}

/// The operation of ``ChecksumTask``.
public final class ChecksumOperation: FlowOperation, DataProvider, @unchecked Sendable {
    public var providedData: DataPayload? { output(as: DataPayload.self) }

    public override func execute() {
        guard let input = input((any DataProvider).self)?.providedData else {
            return finish(.failure(context.failure(.invalidInput, "no input data")))
        }
        var hex = String(CRC32.checksum(input.bytes), radix: 16)
        hex = String(repeating: "0", count: 8 - hex.count) + hex
        if context.parameters(as: ChecksumTask.Parameters.self).uppercase { hex = hex.uppercased() }
        let name = input.source.split(separator: "/").last.map(String.init) ?? input.source
        finish(.success(DataPayload(Data("crc32 \(hex)  \(name)\n".utf8), source: input.source)))
    }
}

/// CRC-32 (IEEE 802.3, as zip and PNG use it), table-driven.
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    /// The checksum of some bytes.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
