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
    /// - Parameters:
    ///   - interlaced: Whether to store the rows in Adam7's seven passes (bit depths of 8 and 16 only).
    ///   - chunks: More chunks (type, body), written before `IDAT`.
    static func png(
        width: Int, height: Int, bitDepth: UInt8, colorType: ColorType, rows: [[UInt8]],
        palette: [(UInt8, UInt8, UInt8)] = [], transparency: [UInt8] = [], interlaced: Bool = false,
        chunks: [(String, [UInt8])] = []
    ) -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(contentsOf: be32(width) + be32(height))
        header.append(contentsOf: [bitDepth, colorType.rawValue, 0, 0, interlaced ? 1 : 0])
        out.append(chunk("IHDR", header))
        if !palette.isEmpty { out.append(chunk("PLTE", Data(palette.flatMap { [$0.0, $0.1, $0.2] }))) }
        if !transparency.isEmpty { out.append(chunk("tRNS", Data(transparency))) }
        for (type, body) in chunks { out.append(chunk(type, Data(body))) }
        let raw: [UInt8]
        if interlaced {
            precondition(bitDepth >= 8, "the fixture writer interlaces whole bytes only")
            let channels = [ColorType.gray: 1, .rgb: 3, .palette: 1, .grayAlpha: 2, .rgba: 4][colorType] ?? 1
            raw = adam7(rows, width: width, height: height, bytesPerPixel: channels * Int(bitDepth) / 8)
        } else {
            raw = rows.flatMap { row -> [UInt8] in [0] + row }
        }
        out.append(chunk("IDAT", zlibStored(raw)))
        out.append(chunk("IEND", Data()))
        return out
    }

    /// The seven Adam7 passes' rows, each with filter byte 0; empty passes are left out, as the format says.
    private static func adam7(_ rows: [[UInt8]], width: Int, height: Int, bytesPerPixel: Int) -> [UInt8] {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var raw: [UInt8] = []
        for (x0, y0, dx, dy) in passes where x0 < width && y0 < height {
            for y in stride(from: y0, to: height, by: dy) {
                raw.append(0)
                for x in stride(from: x0, to: width, by: dx) {
                    raw += rows[y][x * bytesPerPixel..<(x + 1) * bytesPerPixel]
                }
            }
        }
        return raw
    }

    private static func be32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    private static func chunk(_ type: String, _ body: Data) -> Data {
        let typed = Data(type.utf8) + body
        return Data(be32(body.count)) + typed + Data(be32(Int(crc32(typed))))
    }

    static func zlibStored(_ bytes: [UInt8]) -> Data {
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

/// Builds Exif APP1 segments and splices them into JPEG files; builds the TIFF structures of PNG `eXIf` chunks.
enum ExifFixture {
    /// The JPEG with an APP1 Exif segment holding only IFD0 → Orientation, inserted right after SOI.
    static func jpeg(_ jpeg: Data, orientation: Int, bigEndian: Bool) -> Data {
        let body: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff(orientation: orientation, bigEndian: bigEndian)
        let length = body.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        var out = Data(jpeg.prefix(2))
        out.append(contentsOf: segment)
        out.append(jpeg.dropFirst(2))
        return out
    }

    /// A TIFF structure holding only IFD0 → Make and Orientation (the body of a PNG `eXIf` chunk).
    static func tiff(orientation: Int, bigEndian: Bool) -> [UInt8] {
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
        return tiff
    }
}
