/// A small DNG made in the test, byte by byte, as no camera's raw file can be downloaded here: one uncompressed
/// 16-bit Bayer (RGGB) strip in a little-endian TIFF, with what libraw needs to develop it (DNGVersion,
/// PhotometricInterpretation 32803 "CFA", CFARepeatPatternDim 2×2, CFAPattern, BlackLevel, WhiteLevel, ColorMatrix1,
/// AsShotNeutral) and an EXIF and a GPS directory with the camera's facts.
///
/// ColorMatrix1 is the XYZ-to-linear-sRGB matrix, so the camera's channels are linear sRGB (D65); AsShotNeutral
/// scales them as a camera's white balance would undo. The scene: red rising left to right, green top to bottom,
/// blue a checkerboard of 16-pixel squares.
package struct DNGFixture: Sendable {
    package var width = 96
    package var height = 64
    /// The TIFF orientation tag, 1 to 8.
    package var orientation = 1
    /// The size the header claims, when it is to lie (a bomb): the strip still holds `width` × `height`.
    package var claimedSize: (width: Int, height: Int)?
    /// The camera's response to white, as AsShotNeutral stores it.
    package var neutral: (Double, Double, Double) = (0.5, 1.0, 0.7)
    package var withGPS = true
    /// A linear DNG (PhotometricInterpretation 34892): RGB at every pixel, already demosaiced, instead of a mosaic.
    package var linear = false

    package static let black = 256
    package static let white = 16383

    package init(width: Int = 96, height: Int = 64, orientation: Int = 1) {
        self.width = width
        self.height = height
        self.orientation = orientation
    }

    /// The scene's linear sRGB value at a pixel, 0 to 1.
    package static func scene(x: Int, y: Int, width: Int, height: Int) -> (Double, Double, Double) {
        (
            Double(x) / Double(max(width - 1, 1)), Double(y) / Double(max(height - 1, 1)),
            (x / 16 + y / 16) % 2 == 0 ? 0.25 : 0.75
        )
    }

    /// The file.
    package var bytes: [UInt8] {
        let size = claimedSize ?? (width, height)
        let matrix = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]
        let samples = linear ? 3 : 1
        var ifd0: [Field] = [
            .long(0x00FE, 0), .long(0x0100, size.width), .long(0x0101, size.height),
            .shorts(0x0102, [Int](repeating: 16, count: samples)), .short(0x0103, 1),
            .short(0x0106, linear ? 34892 : 32803), .ascii(0x010F, "Flowrun"), .ascii(0x0110, "Test DNG"),
            .long(0x0111, 0), .short(0x0112, orientation), .short(0x0115, samples), .long(0x0116, size.height),
            .long(0x0117, width * height * 2 * samples), .short(0x011C, 1), .ascii(0x0132, "2024:06:01 14:03:22"),
            .bytes(0xC612, [1, 4, 0, 0]),
            .bytes(0xC613, [1, 1, 0, 0]), .ascii(0xC614, "Flowrun Test DNG"), .short(0xC61A, Self.black),
            .short(0xC61D, Self.white),
            .signedRationals(0xC621, matrix.map { (Int(($0 * 10000).rounded()), 10000) }),
            .rationals(0xC628, [neutral.0, neutral.1, neutral.2].map { (Int(($0 * 1000).rounded()), 1000) }),
            .short(0xC65A, 21),
        ]
        if !linear { ifd0 += [.shorts(0x828D, [2, 2]), .bytes(0x828E, [0, 1, 1, 2])] }
        let exif: [Field] = [
            .rationals(0x829A, [(1, 125)]), .rationals(0x829D, [(4, 1)]), .short(0x8827, 200),
            .ascii(0x9003, "2024:06:01 14:03:22"), .rationals(0x920A, [(50, 1)]),
        ]
        let gps: [Field] =
            withGPS
            ? [
                .bytes(0, [2, 3, 0, 0]), .ascii(1, "N"), .rationals(2, [(43, 1), (28, 1), (4884, 100)]),
                .ascii(3, "W"), .rationals(4, [(2, 1), (35, 1), (3696, 100)]), .bytes(5, [0]),
                .rationals(6, [(1250, 1)]),
            ] : []
        // Layout: header, IFD0, EXIF, GPS (each with its long values), then the strip.
        let pointers = 1 + (gps.isEmpty ? 0 : 1)
        let ifd0Size = Self.size(ifd0, extraEntries: pointers)
        let exifAt = 8 + ifd0Size
        let gpsAt = exifAt + Self.size(exif)
        let stripAt = gpsAt + (gps.isEmpty ? 0 : Self.size(gps))
        ifd0.append(.long(0x8769, exifAt))
        if !gps.isEmpty { ifd0.append(.long(0x8825, gpsAt)) }
        ifd0 = ifd0.map { $0.tag == 0x0111 ? .long(0x0111, stripAt) : $0 }
        var out: [UInt8] = [0x49, 0x49, 42, 0] + Self.u32(8)
        out += Self.directory(ifd0, at: 8)
        out += Self.directory(exif, at: exifAt)
        if !gps.isEmpty { out += Self.directory(gps, at: gpsAt) }
        out += mosaic
        return out
    }

    /// The sensor's values, row by row: the scene times the neutral, between black and white, through RGGB (or all
    /// three channels of each pixel, for a linear DNG).
    private var mosaic: [UInt8] {
        let (width, height, neutral) = (width, height, [neutral.0, neutral.1, neutral.2])
        let samples = linear ? 3 : 1
        let range = Double(Self.white - Self.black)
        return [UInt8](unsafeUninitializedCapacity: width * height * 2 * samples) { out, initialized in
            var at = 0
            for y in 0..<height {
                for x in 0..<width {
                    let rgb = Self.scene(x: x, y: y, width: width, height: height)
                    let mosaic = y % 2 == 0 ? (x % 2 == 0 ? 0 : 1) : (x % 2 == 0 ? 1 : 2)
                    for channel in samples == 3 ? [0, 1, 2] : [mosaic] {
                        let value =
                            Self.black + Int(([rgb.0, rgb.1, rgb.2][channel] * neutral[channel] * range).rounded())
                        out[at] = UInt8(value & 0xFF)
                        out[at + 1] = UInt8(value >> 8)
                        at += 2
                    }
                }
            }
            initialized = width * height * 2 * samples
        }
    }

    /// One TIFF field: tag, type, count and its little-endian bytes.
    private struct Field {
        var tag: Int
        var type: Int
        var count: Int
        var bytes: [UInt8]

        static func ascii(_ tag: Int, _ text: String) -> Field {
            Field(tag: tag, type: 2, count: text.utf8.count + 1, bytes: Array(text.utf8) + [0])
        }
        static func bytes(_ tag: Int, _ values: [UInt8]) -> Field {
            Field(tag: tag, type: 1, count: values.count, bytes: values)
        }
        static func short(_ tag: Int, _ value: Int) -> Field { shorts(tag, [value]) }
        static func shorts(_ tag: Int, _ values: [Int]) -> Field {
            Field(tag: tag, type: 3, count: values.count, bytes: values.flatMap(DNGFixture.u16))
        }
        static func long(_ tag: Int, _ value: Int) -> Field {
            Field(tag: tag, type: 4, count: 1, bytes: DNGFixture.u32(value))
        }
        static func rationals(_ tag: Int, _ values: [(Int, Int)]) -> Field {
            Field(tag: tag, type: 5, count: values.count, bytes: values.flatMap { u32($0.0) + u32($0.1) })
        }
        static func signedRationals(_ tag: Int, _ values: [(Int, Int)]) -> Field {
            Field(tag: tag, type: 10, count: values.count, bytes: values.flatMap { u32($0.0) + u32($0.1) })
        }
        private static func u32(_ v: Int) -> [UInt8] { DNGFixture.u32(v) }
    }

    private static func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    private static func u32(_ v: Int) -> [UInt8] {
        let bits = UInt32(truncatingIfNeeded: v)
        return [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
    }

    private static func size(_ fields: [Field], extraEntries: Int = 0) -> Int {
        2 + (fields.count + extraEntries) * 12 + 4
            + fields.map(\.bytes.count).filter { $0 > 4 }.map { $0 + $0 % 2 }.reduce(0, +)
    }

    private static func directory(_ fields: [Field], at offset: Int) -> [UInt8] {
        var head = u16(fields.count)
        var tail: [UInt8] = []
        let valuesAt = offset + 2 + fields.count * 12 + 4
        for field in fields.sorted(by: { $0.tag < $1.tag }) {
            head += u16(field.tag) + u16(field.type) + u32(field.count)
            if field.bytes.count <= 4 {
                head += field.bytes + [UInt8](repeating: 0, count: 4 - field.bytes.count)
            } else {
                head += u32(valuesAt + tail.count)
                tail += field.bytes + (field.bytes.count % 2 == 1 ? [0] : [])
            }
        }
        return head + u32(0) + tail
    }
}
