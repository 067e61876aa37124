internal import CFlowShims
internal import CTurboJPEG
import Foundation

/// Decodes JPEG through TurboJPEG into RGBA8, optionally at a reduced DCT scale (shrink-on-load).
///
/// YCbCr, RGB and grayscale JPEGs decode straight to RGBA. CMYK and YCCK JPEGs decode to CMYK and are converted
/// the way browsers do: the channels are taken as Adobe-inverted (as Photoshop writes them), `R = C·K / 255`.
/// The EXIF orientation is applied afterwards. At scale 1/2 each 8×8 block's low 4×4 frequencies are sampled at the
/// centres of its 2×2 squares (at 1/4 its low 2×2 at the centres of 4×4 squares), not averaged over them as
/// libjpeg's own reduced IDCTs do (`jpeg_sampled_idct.c`).
enum JPEGDecoder {
    /// The header facts needed to plan a decode.
    struct Header {
        var width: Int
        var height: Int
        var colorspace: Int32
        var orientation: ExifOrientation
        /// libjpeg's warning about the markers (e.g. stray bytes before one), if any.
        var warning: String?

        /// The size shown once the orientation is applied.
        var orientedSize: (width: Int, height: Int) {
            orientation.swapsAxes ? (height, width) : (width, height)
        }
    }

    /// Reads the header and the orientation (EXIF's, else XMP's).
    ///
    /// TurboJPEG's header call returns -1 for libjpeg warnings too (e.g. "16 extraneous bytes before marker 0xe1",
    /// common in files from old cameras), with the size already filled in: then the
    /// header is used, as the full decode tolerates the same warning, and the warning is kept in it.
    static func header(_ bytes: UnsafeRawBufferPointer, handle: TurboJPEGHandle) throws(ImageCodecError) -> Header {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageCodecError("JPEG data is empty")
        }
        var w: Int32 = 0
        var h: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        var warning: String?
        if tjDecompressHeader3(handle.raw, base, UInt(bytes.count), &w, &h, &subsampling, &colorspace) != 0 {
            if handle.lastFailureIsWarning, w > 0, h > 0 {
                warning = handle.errorMessage
            } else {
                // A file cut short usually fails here, in its tables; it then lacks the EOI marker at the end.
                let cause =
                    endsWithEOI(bytes) ? "corrupt JPEG header" : "JPEG data is truncated or its header is corrupt"
                throw ImageCodecError("\(cause) (\(handle.errorMessage))")
            }
        }
        guard w > 0, h > 0 else {
            // A file cut short before its frame header (or damaged before it) gives TurboJPEG no size and no error.
            throw ImageCodecError(
                endsWithEOI(bytes)
                    ? "JPEG has no frame header (tables only, no picture)"
                    : "no JPEG frame header in \(bytes.count) bytes: the file is truncated or damaged")
        }
        let orientation = JPEGSegments.read(bytes).orientation
        return Header(
            width: Int(w), height: Int(h), colorspace: colorspace, orientation: orientation, warning: warning)
    }

    /// Whether the file ends with the EOI marker (allowing for a few bytes of padding after it, as some writers
    /// add): a file cut short lacks it, a damaged one usually keeps it.
    static func endsWithEOI(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let tail = bytes.suffix(16)
        return zip(tail, tail.dropFirst()).contains { $0 == 0xFF && $1 == 0xD9 }
    }

    /// The smallest TurboJPEG scaling factor (M/8, at most 1) that keeps at least `fraction` of each side.
    static func scalingFactor(keeping fraction: Double) -> (num: Int, denom: Int) {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return (1, 1) }
        var best = (num: 1, denom: 1)
        for index in 0..<Int(count) {
            let num = Int(factors[index].num)
            let denom = Int(factors[index].denom)
            let value = Double(num) / Double(denom)
            guard value <= 1, value >= fraction, value < Double(best.num) / Double(best.denom) else { continue }
            best = (num, denom)
        }
        return best
    }

    /// Decodes a JPEG.
    /// - Parameters:
    ///   - bytes: The JPEG file.
    ///   - source: Where it came from.
    ///   - keptFraction: Given the oriented full size, the fraction of each side that consumers need, or `nil`
    ///     for a full decode.
    ///   - warn: Receives libjpeg's warnings about a damaged but readable file.
    ///   - shouldContinue: Asked every ``rowsPerCheck`` rows with the rows done; `false` stops the decode, which
    ///     then throws.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, source: String,
        keptFraction: (_ width: Int, _ height: Int) -> Double?, warn: (String) -> Void,
        shouldContinue: (_ rowsDone: Int) -> Bool = { _ in true }
    ) throws(ImageCodecError) -> Image {
        let handle = try TurboJPEGHandle.decompressor()
        let header = try header(bytes, handle: handle)
        if let warning = header.warning { warn(warning) }
        // A header may claim any size: refuse a file too short to hold it before allocating the pixels (a few
        // hundred bytes could otherwise cost a 1 GiB buffer and seconds of decoding into it).
        if !isArithmeticCoded(bytes) {
            let blocks = ((header.width + 7) / 8) * ((header.height + 7) / 8)
            guard bytes.count * 8 >= blocks else {
                throw ImageCodecError(
                    "JPEG data is truncated (\(bytes.count) bytes cannot hold "
                        + "\(header.width)×\(header.height) pixels; Huffman coding needs at least \((blocks + 7) / 8))")
            }
        }
        try PixelBudget.check(width: header.width, height: header.height, making: "the JPEG")
        let oriented = header.orientedSize
        var factor = (num: 1, denom: 1)
        if let fraction = keptFraction(oriented.width, oriented.height) {
            factor = scalingFactor(keeping: fraction)
            // A file dense with detail keeps more, except at 1/2: see `ConsumerAnalysis.detailedMargin`.
            let bitsPerPixel = Double(entropyCodedCount(bytes) * 8) / Double(header.width * header.height)
            if factor.num * 2 != factor.denom, bitsPerPixel > ConsumerAnalysis.detailedBitsPerPixel {
                factor = scalingFactor(
                    keeping: fraction * ConsumerAnalysis.detailedMargin / ConsumerAnalysis.qualityMargin)
            }
        }
        let w = (header.width * factor.num + factor.denom - 1) / factor.denom
        let h = (header.height * factor.num + factor.denom - 1) / factor.denom
        let isCMYK = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)
        // libjpeg writes every row of the buffer (or fails, or is stopped, and the buffer is dropped): no
        // zero-filling first.
        var status = cflow_jpeg_status()
        var pixels = [UInt8](unsafeUninitializedCapacity: w * h * 4) { out, initialized in
            status = decodeRows(
                bytes, scaleEighths: factor.num * 8 / factor.denom, cmyk: isCMYK, into: out, width: w, height: h,
                shouldContinue: shouldContinue)
            initialized = w * h * 4
        }
        if status.status == 2 { throw ImageCodecError("the decode was stopped") }
        if status.status != 0 || status.warnings > 0 {
            let message = withUnsafeBytes(of: status.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            // Warnings still produce pixels; a file whose data ends early does too, but with a grey bottom: refuse
            // that. libjpeg says "premature end" both for a file cut short and for a marker found inside damaged
            // entropy-coded data; only a file without its EOI marker is truncated.
            let endsEarly = message.localizedCaseInsensitiveContains("premature end")
            if status.status != 0 || endsEarly {
                let cause = endsEarly && !endsWithEOI(bytes) ? "JPEG data is truncated" : "corrupt JPEG data"
                throw ImageCodecError("\(cause) (\(message))")
            }
            // The header and the full decode read the same markers: report a warning once.
            if message != header.warning { warn(message) }
        }
        if isCMYK { convertInvertedCMYKToRGBA(&pixels) }
        let original = (header.width, header.height)
        var image = Image(width: w, height: h, pixels: pixels, source: source, originalSize: original)
        image.decodedScale = Double(factor.num) / Double(factor.denom)
        image.metadata = JPEGSegments.read(bytes)
        return image.oriented(header.orientation)
    }

    /// How many rows libjpeg decodes between two `shouldContinue` checks: a few milliseconds of a 50-megapixel
    /// photo, and no measurable cost.
    static let rowsPerCheck = 16

    /// Decodes the pixels with libjpeg's scanline API (in C: its errors longjmp), asking `shouldContinue` every
    /// ``rowsPerCheck`` rows; TurboJPEG's one-call decode could not be stopped.
    private static func decodeRows(
        _ bytes: UnsafeRawBufferPointer, scaleEighths: Int, cmyk: Bool, into out: UnsafeMutableBufferPointer<UInt8>,
        width: Int, height: Int, shouldContinue: (_ rowsDone: Int) -> Bool
    ) -> cflow_jpeg_status {
        withoutActuallyEscaping(shouldContinue) { check in
            var context = check
            return withUnsafeMutablePointer(to: &context) { pointer in
                cflow_jpeg_decode_rows(
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(scaleEighths),
                    cmyk ? 1 : 0, out.baseAddress, width, height, rowsPerCheck,
                    { context, rows in
                        guard let check = context?.assumingMemoryBound(to: ((Int) -> Bool).self).pointee else {
                            return 1
                        }
                        return check(rows) ? 1 : 0
                    }, pointer)
            }
        }
    }

    /// Whether the frame is arithmetic-coded (SOF9–11, SOF13–15), found by walking the markers up to the first SOF.
    ///
    /// Huffman coding spends at least one bit on every 8×8 block of a full-resolution component (its DC code), so a
    /// file holds at least `blocks / 8` bytes; arithmetic coding has no such floor. A file whose markers cannot be
    /// walked (libjpeg tolerates some broken segment lengths) counts as Huffman-coded: the bound then applies.
    static func isArithmeticCoded(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let frameOrScan = firstMarker(in: bytes) { marker in
            (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) || marker == 0xDA || marker == 0xD9
        }
        guard let marker = frameOrScan?.marker else { return false }
        return (0xC9...0xCB).contains(marker) || (0xCD...0xCF).contains(marker)
    }

    /// The bytes from the first scan (SOS) to the end: the entropy-coded data, without the tables and metadata
    /// before it, which would make a small file look dense. The whole file when its markers cannot be walked.
    static func entropyCodedCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        bytes.count - (firstMarker(in: bytes) { $0 == 0xDA }?.offset ?? 0)
    }

    /// Walks the marker segments from the start of a JPEG to the first marker `stop` accepts: that marker and its
    /// offset, or `nil` when the segments cannot be walked that far.
    private static func firstMarker(
        in bytes: UnsafeRawBufferPointer, where stop: (UInt8) -> Bool
    ) -> (marker: UInt8, offset: Int)? {
        var i = 2
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            if marker == 0xFF {
                i += 1
                continue
            }
            if stop(marker) { return (marker, i) }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2 else { return nil }
            i += 2 + length
        }
        return nil
    }

    /// Adobe-inverted CMYK to RGBA in place: `R = C·K/255`, `G = M·K/255`, `B = Y·K/255`, opaque.
    private static func convertInvertedCMYKToRGBA(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            var i = 0
            while i < buffer.count {
                let k = UInt32(buffer[i + 3])
                buffer[i] = UInt8((UInt32(buffer[i]) * k + 127) / 255)
                buffer[i + 1] = UInt8((UInt32(buffer[i + 1]) * k + 127) / 255)
                buffer[i + 2] = UInt8((UInt32(buffer[i + 2]) * k + 127) / 255)
                buffer[i + 3] = 255
                i += 4
            }
        }
    }
}
