import Foundation

/// Writes PNG files of any colour type and bit depth, byte by byte, so tests control exactly what the decoder
/// sees (palette + tRNS, 16-bit without gAMA, …). Uses stored (uncompressed) deflate blocks.
enum PNGFixtureWriter {
    /// PNG colour types.
    enum ColorType: UInt8 {
        case gray = 0
        case rgb = 2
        case palette = 3
        case grayAlpha = 4
        case rgba = 6
    }

    /// A PNG of raw, unfiltered scanline bytes (`rows` without the filter byte).
    static func png(
        width: Int, height: Int, bitDepth: UInt8, colorType: ColorType, rows: [[UInt8]],
        palette: [(UInt8, UInt8, UInt8)] = [], transparency: [UInt8] = []
    ) -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(contentsOf: be32(width) + be32(height))
        header.append(contentsOf: [bitDepth, colorType.rawValue, 0, 0, 0])
        out.append(chunk("IHDR", header))
        if !palette.isEmpty { out.append(chunk("PLTE", Data(palette.flatMap { [$0.0, $0.1, $0.2] }))) }
        if !transparency.isEmpty { out.append(chunk("tRNS", Data(transparency))) }
        let raw: [UInt8] = rows.flatMap { row -> [UInt8] in [0] + row }
        out.append(chunk("IDAT", zlibStored(raw)))
        out.append(chunk("IEND", Data()))
        return out
    }

    private static func be32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    private static func chunk(_ type: String, _ body: Data) -> Data {
        let typed = Data(type.utf8) + body
        return Data(be32(body.count)) + typed + Data(be32(Int(crc32(typed))))
    }

    private static func zlibStored(_ bytes: [UInt8]) -> Data {
        var out = Data([0x78, 0x01])
        var offset = 0
        repeat {
            let n = min(65535, bytes.count - offset)
            let final: UInt8 = offset + n == bytes.count ? 1 : 0
            out.append(contentsOf: [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)])
            out.append(contentsOf: bytes[offset..<offset + n])
            offset += n
        } while offset < bytes.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        out.append(contentsOf: be32(Int(b << 16 | a)))
        return out
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// Builds Exif APP1 segments and splices them into JPEG files.
enum ExifFixture {
    /// The JPEG with an APP1 Exif segment holding only IFD0 → Orientation, inserted right after SOI.
    static func jpeg(_ jpeg: Data, orientation: Int, bigEndian: Bool) -> Data {
        func u16(_ v: Int) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += u16(42) + u32(8)  // IFD0 right after the header
        tiff += u16(2)  // two entries: one before, then Orientation
        tiff += u16(0x010F) + u16(2) + u32(4) + [0x41, 0x43, 0x4D, 0]  // Make = "ACM"
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
        tiff += u32(0)  // no IFD1
        let body: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff
        let length = body.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        var out = Data(jpeg.prefix(2))
        out.append(contentsOf: segment)
        out.append(jpeg.dropFirst(2))
        return out
    }
}
