/// The EXIF fields people sort and search photos by, read from a TIFF structure (an EXIF block, or a TIFF file's own
/// directories) without decoding anything else: for `probe`.
struct ExifSummary: Equatable {
    /// When the photo was taken (DateTimeOriginal, else DateTime) as ISO 8601, with its offset when EXIF gives one.
    var dateTaken: String?
    var make: String?
    var model: String?
    var lens: String?
    /// Seconds.
    var exposureTime: Double?
    var fNumber: Double?
    var iso: Int?
    /// Millimetres.
    var focalLength: Double?
    /// Degrees, north and east positive.
    var latitude: Double?
    var longitude: Double?
    /// Metres, above sea level positive.
    var altitude: Double?

    /// Reads IFD0, the EXIF directory (0x8769) and the GPS directory (0x8825).
    init(_ tiff: TIFFStructure) {
        guard let ifd0 = tiff.firstIFD else { return }
        let main = tiff.entries(ofIFDAt: ifd0)
        func field(_ entries: [TIFFStructure.Entry], _ tag: Int) -> TIFFStructure.Entry? {
            entries.first { $0.tag == tag }
        }
        make = field(main, 0x010F).flatMap(tiff.text)
        model = field(main, 0x0110).flatMap(tiff.text)
        let exif = field(main, 0x8769).flatMap(tiff.integer).map(tiff.entries(ofIFDAt:)) ?? []
        let taken = field(exif, 0x9003).flatMap(tiff.text) ?? field(main, 0x0132).flatMap(tiff.text)
        dateTaken = taken.flatMap { Self.isoDate($0, offset: field(exif, 0x9011).flatMap(tiff.text)) }
        lens = field(exif, 0xA434).flatMap(tiff.text)
        exposureTime = field(exif, 0x829A).flatMap { tiff.rational($0) }
        fNumber = field(exif, 0x829D).flatMap { tiff.rational($0) }
        iso = field(exif, 0x8827).flatMap(tiff.integer)
        focalLength = field(exif, 0x920A).flatMap { tiff.rational($0) }
        let gps = field(main, 0x8825).flatMap(tiff.integer).map(tiff.entries(ofIFDAt:)) ?? []
        func degrees(_ tag: Int, negativeIf negative: UInt8) -> Double? {
            guard let value = field(gps, tag), let d = tiff.rational(value, index: 0),
                let m = tiff.rational(value, index: 1), let s = tiff.rational(value, index: 2)
            else { return nil }
            let reference = field(gps, tag - 1).flatMap(tiff.text)?.utf8.first
            return (d + m / 60 + s / 3600) * (reference == negative ? -1 : 1)
        }
        latitude = degrees(2, negativeIf: UInt8(ascii: "S"))
        longitude = degrees(4, negativeIf: UInt8(ascii: "W"))
        if let height = field(gps, 6).flatMap({ tiff.rational($0) }) {
            altitude = field(gps, 5).flatMap(tiff.integer) == 1 ? -height : height
        }
    }

    /// `2024:06:01 14:03:22` (and `+02:00`) as `2024-06-01T14:03:22+02:00`; `nil` for anything else (blank
    /// dates written as `0000:00:00 00:00:00` included).
    static func isoDate(_ text: String, offset: String?) -> String? {
        let characters = Array(text.utf8)
        guard characters.count >= 19, characters[4] == 0x3A, characters[7] == 0x3A, characters[10] == 0x20,
            characters[13] == 0x3A, characters[16] == 0x3A, !text.hasPrefix("0000")
        else { return nil }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        guard digits.allSatisfy({ (0x30...0x39).contains(characters[$0]) }) else { return nil }
        var date = Array(text.utf8.prefix(19))
        date[4] = 0x2D
        date[7] = 0x2D
        date[10] = 0x54
        var result = String(decoding: date, as: UTF8.self)
        if let offset, offset.utf8.count == 6, offset.hasPrefix("+") || offset.hasPrefix("-") { result += offset }
        return result
    }
}
