/// Writes a small EXIF block — a little-endian TIFF structure with IFD0 and the EXIF and GPS directories it points
/// at — for metadata that did not arrive as one: a camera's raw file, whose fields libraw reads from wherever its
/// maker keeps them. `probe` and `write`'s `keep`/`strip` then treat it as any other EXIF block.
struct ExifBlockWriter {
    /// A field's value.
    enum Value {
        case ascii(String)
        case byte(UInt8)
        case short(Int)
        case long(Int)
        case rationals([(numerator: UInt32, denominator: UInt32)])
    }

    /// IFD0's fields, by tag.
    var main: [(tag: Int, value: Value)] = []
    /// The EXIF directory's fields (IFD0 points at it with 0x8769 when there are any).
    var exif: [(tag: Int, value: Value)] = []
    /// The GPS directory's fields (0x8825).
    var gps: [(tag: Int, value: Value)] = []

    /// The block: the header, then each directory followed by the values too long for its entries.
    var bytes: [UInt8] {
        var ifd0 = main
        let ifd0Size = Self.size(of: ifd0.count + (exif.isEmpty ? 0 : 1) + (gps.isEmpty ? 0 : 1), values: ifd0)
        let exifAt = 8 + ifd0Size
        let gpsAt = exifAt + (exif.isEmpty ? 0 : Self.size(of: exif.count, values: exif))
        if !exif.isEmpty { ifd0.append((0x8769, .long(exifAt))) }
        if !gps.isEmpty { ifd0.append((0x8825, .long(gpsAt))) }
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0] + Self.u32(8)
        out += Self.directory(ifd0, at: 8)
        if !exif.isEmpty { out += Self.directory(exif, at: exifAt) }
        if !gps.isEmpty { out += Self.directory(gps, at: gpsAt) }
        return out
    }

    /// A rational close to `value` (six significant decimals), as EXIF stores exposure, aperture and degrees.
    static func rational(_ value: Double) -> (numerator: UInt32, denominator: UInt32) {
        guard value.isFinite, value > 0 else { return (0, 1) }
        // A shutter speed is 1/N: keep it exact.
        if value < 1, (1 / value).rounded() == (1 / value * 1000).rounded() / 1000 {
            return (1, UInt32(min((1 / value).rounded(), Double(UInt32.max))))
        }
        let denominator: UInt32 = value < 4000 ? 1_000_000 : 1
        return (UInt32(min((value * Double(denominator)).rounded(), Double(UInt32.max))), denominator)
    }

    private static func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    private static func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16 & 0xFFFF) }

    /// The field type, count and value bytes of a value.
    private static func encoded(_ value: Value) -> (type: Int, count: Int, bytes: [UInt8]) {
        switch value {
        case .ascii(let text): (2, text.utf8.count + 1, Array(text.utf8) + [0])
        case .byte(let byte): (1, 1, [byte])
        case .short(let number): (3, 1, u16(number))
        case .long(let number): (4, 1, u32(number))
        case .rationals(let values):
            (5, values.count, values.flatMap { u32(Int($0.numerator)) + u32(Int($0.denominator)) })
        }
    }

    /// The bytes of a directory of `count` entries holding `values` (pointers fit in their entries).
    private static func size(of count: Int, values: [(tag: Int, value: Value)]) -> Int {
        let outside = values.map { encoded($0.value).bytes.count }.filter { $0 > 4 }.map { $0 + $0 % 2 }
        return 2 + count * 12 + 4 + outside.reduce(0, +)
    }

    /// One directory at `offset`: its entries in tag order, no next directory, then the long values.
    private static func directory(_ fields: [(tag: Int, value: Value)], at offset: Int) -> [UInt8] {
        var head = u16(fields.count)
        var tail: [UInt8] = []
        let valuesAt = offset + 2 + fields.count * 12 + 4
        for field in fields.sorted(by: { $0.tag < $1.tag }) {
            let (type, count, bytes) = encoded(field.value)
            head += u16(field.tag) + u16(type) + u32(count)
            if bytes.count <= 4 {
                head += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
            } else {
                head += u32(valuesAt + tail.count)
                tail += bytes + (bytes.count % 2 == 1 ? [0] : [])
            }
        }
        return head + u32(0) + tail
    }
}
