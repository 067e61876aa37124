internal import CFlowChecksum

/// CRC-32C (Castagnoli), the checksum of each journal record, as LevelDB and RocksDB use for theirs.
///
/// Written here because swift-crypto has no CRC, and a record per node must be checked for a fraction of a
/// nanosecond a byte, not a SHA-256 call: it catches every torn tail and every burst error up to 32 bits; the
/// journal guards against accidents, not against someone forging records. With the processor's `crc32`
/// instruction where it has one (SSE4.2: eight bytes a cycle or so); else slicing-by-8 (eight tables, eight bytes
/// a step), a tenth of the time a table lookup per byte takes.
package enum CRC32C {
    private static let hardware = cflow_crc32c_available() != 0

    /// `tables[k][b]`: the CRC of byte `b` followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[index] = crc
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// The checksum of `bytes`, or with `previous`, of the bytes it was the checksum of followed by these: a file
    /// written in pieces is checked without a copy of it whole.
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        guard hardware else { return tableChecksum(bytes, continuing: previous) }
        return cflow_crc32c_update(previous ^ 0xFFFF_FFFF, bytes.baseAddress, bytes.count) ^ 0xFFFF_FFFF
    }

    /// The checksum without the instruction; the same value.
    package static func tableChecksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        var crc: UInt32 = previous ^ 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { table in
            var offset = 0
            while offset + 8 <= bytes.count {
                let low = crc ^ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let high = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                offset += 8
            }
            while offset < bytes.count {
                crc = table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
