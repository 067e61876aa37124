import Foundation

/// What libraw read of a raw file's camera and exposure, wherever the maker keeps it (EXIF, maker notes, a header
/// of its own), and its EXIF block for ``ImageMetadata``: camera, lens, date, exposure and position.
struct RawShot: Equatable {
    /// Where the photo was taken, as libraw reads the GPS directory.
    struct Position: Equatable {
        /// Degrees, minutes, seconds.
        var latitude: [Double]
        /// `N` or `S`.
        var latitudeReference: UInt8
        var longitude: [Double]
        /// `E` or `W`.
        var longitudeReference: UInt8
        /// Metres.
        var altitude: Double
        var belowSeaLevel: Bool
    }

    var make: String?
    var model: String?
    var lens: String?
    /// When it was taken, seconds since 1970; libraw reads the camera's local date as local time (`mktime`), so it
    /// is turned back the same way.
    var taken: Int?
    /// Seconds; 0 when unknown, as the other numbers.
    var exposureTime: Double
    var fNumber: Double
    var iso: Double
    /// Millimetres.
    var focalLength: Double
    var position: Position?

    /// The date as EXIF writes it, `2024:06:01 14:03:22`.
    var exifDate: String? {
        guard let taken else { return nil }
        var seconds = time_t(taken)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return nil }
        return String(
            format: "%04d:%02d:%02d %02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// The EXIF block of these fields (orientation 1: libraw develops upright), or `nil` when libraw read none.
    var exif: [UInt8]? {
        var block = ExifBlockWriter()
        if let make { block.main.append((0x010F, .ascii(make))) }
        if let model { block.main.append((0x0110, .ascii(model))) }
        if let date = exifDate {
            block.main.append((0x0132, .ascii(date)))
            block.exif.append((0x9003, .ascii(date)))
        }
        if exposureTime > 0 { block.exif.append((0x829A, .rationals([ExifBlockWriter.rational(exposureTime)]))) }
        if fNumber > 0 { block.exif.append((0x829D, .rationals([ExifBlockWriter.rational(fNumber)]))) }
        if iso > 0 { block.exif.append((0x8827, .short(min(Int(iso.rounded()), 65535)))) }
        if focalLength > 0 { block.exif.append((0x920A, .rationals([ExifBlockWriter.rational(focalLength)]))) }
        if let lens { block.exif.append((0xA434, .ascii(lens))) }
        if let position {
            func reference(_ letter: UInt8, otherwise: String) -> ExifBlockWriter.Value {
                .ascii(letter == 0 ? otherwise : String(UnicodeScalar(letter)))
            }
            block.gps = [
                (1, reference(position.latitudeReference, otherwise: "N")),
                (2, .rationals(position.latitude.map(ExifBlockWriter.rational))),
                (3, reference(position.longitudeReference, otherwise: "E")),
                (4, .rationals(position.longitude.map(ExifBlockWriter.rational))),
                (5, .byte(position.belowSeaLevel ? 1 : 0)),
                (6, .rationals([ExifBlockWriter.rational(position.altitude)])),
            ]
        }
        guard !block.main.isEmpty || !block.exif.isEmpty || !block.gps.isEmpty else { return nil }
        block.main.append((0x0112, .short(1)))
        return block.bytes
    }
}
