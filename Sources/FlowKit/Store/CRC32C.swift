/// CRC-32C (Castagnoli), the checksum of each journal record, as LevelDB and RocksDB use for theirs.
///
/// Written here because swift-crypto has no CRC, and a record per node must be checked for a few nanoseconds a
/// byte, not a SHA-256 call: it catches every torn tail and every burst error up to 32 bits; the journal guards
/// against accidents, not against someone forging records.
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
