import Foundation

/// Reads a camera's raw file (``CameraRaw``: DNG, CR2, CR3, NEF, ARW, RAF, ORF, RW2, PEF, SRW) through libraw, from
/// memory: demosaiced (AHD), the camera's white balance as shot, sRGB, 8 bits, no automatic brightening, the
/// orientation applied (libraw's `flip`). The camera, lens, date, exposure and position libraw reads become an EXIF
/// block (``RawShot``), so `probe`, `keep: [exif]` and `strip: [gps]` work as for a JPEG.
///
/// Shrink-on-load uses libraw's `half_size` (each 2×2 block of sensor pixels one pixel, no demosaic) when every
/// consumer keeps at most half of each side; the embedded preview is never used, since it may be smaller, cropped or
/// differently rendered. The size libraw reads from the header is checked against the ``PixelBudget`` before it
/// unpacks anything; a file that ends early fails rather than giving a partly grey picture.
enum RawCodec {
    /// Decodes a raw file.
    /// - Parameters:
    ///   - keptFraction: Given the oriented full size, the fraction of each side consumers need, or `nil` for a full
    ///     decode; at most 1/2 develops at half size.
    ///   - warn: Receives libraw's complaint about damaged data it developed anyway.
    ///   - shouldContinue: Asked at every step libraw reports; `false` stops the decode, which then throws.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, source: String,
        keptFraction: (_ width: Int, _ height: Int) -> Double?, warn: (String) -> Void,
        shouldContinue: (_ stepsDone: Int) -> Bool
    ) throws(ImageCodecError) -> Image {
        let file = try open(bytes)
        try checkBudget(file)
        let full = file.developedSize
        let halfSize = keptFraction(full.width, full.height).map { $0 <= 0.5 } ?? false
        var image = try file.develop(halfSize: halfSize, source: source, warn: warn, shouldContinue: shouldContinue)
        // libraw halves only mosaic data (a linear DNG or a monochrome sensor comes back whole), and rounds half sizes
        // up, as TurboJPEG does: the last pixel may cover half a pixel of the original.
        if halfSize, abs(image.width - (full.width + 1) / 2) <= 1, abs(image.height - (full.height + 1) / 2) <= 1 {
            image.originalWidth = full.width
            image.originalHeight = full.height
            image.decodedScale = 0.5
        }
        image.metadata = ImageMetadata(exif: file.shot.exif)
        return image
    }

    /// Opens a raw file: its header and metadata, for `probe` or a decode.
    static func open(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> LibRawFile {
        let head = Array(bytes.prefix(CameraRaw.bytesExamined))
        let raw = CameraRaw.identify(head) ?? CameraRaw(name: "a camera raw file", format: "raw")
        return try LibRawFile(bytes, raw: raw)
    }

    /// Checks the sizes the header claims against the pixel budget, before anything is unpacked: the sensor data
    /// (margins included, 2 bytes a pixel), the picture, and the developed image (non-square pixels stretched).
    private static func checkBudget(_ file: LibRawFile) throws(ImageCodecError) {
        let raw = file.raw
        let stored = file.storedSize
        let sensor = file.sensorSize
        try PixelBudget.check(width: stored.width, height: stored.height, making: "the \(raw.format)")
        try PixelBudget.check(width: sensor.width, height: sensor.height, making: "the \(raw.format)'s sensor data")
        let developed = file.developedSize
        try PixelBudget.check(width: developed.width, height: developed.height, making: "the \(raw.format)")
    }
}
