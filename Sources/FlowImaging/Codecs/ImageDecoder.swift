import Foundation

/// Decodes JPEG, PNG, WebP, TIFF, HEIC, AVIF or camera raw bytes, recognised from their magic bytes, into an
/// ``Image``.
package enum ImageDecoder {
    /// Decodes an image file: its pixels, turned upright by its EXIF orientation and converted to sRGB from its ICC
    /// profile, if any (see ``ColorProfile``), and its metadata (``Image/metadata``).
    /// - Parameters:
    ///   - data: The encoded bytes.
    ///   - source: Where they came from, kept in the image.
    ///   - keptFraction: For shrink-on-load: given the upright full size, the fraction of each side that is
    ///     enough for every consumer, or `nil` for a full decode. JPEG uses it (DCT scaling by M/8:
    ///     1/2, 3/8, 1/4, 1/8…), and a camera's raw file (libraw's half size at 1/2 or less); the image's
    ///     ``Image/originalWidth`` and ``Image/originalHeight`` keep the full size.
    ///   - warn: Receives the decoder's warnings about a damaged but readable file (the image is still returned).
    ///   - shouldContinue: Asked as the decode goes with the work done — every few rows of a JPEG, before every
    ///     read of a PNG's bytes, every part of a WebP fed to libwebp, every band of a TIFF's strips or tiles, before a
    ///     HEIC or AVIF (libheif cannot stop midway), at the start and end of each of libraw's stages for a raw file
    ///     (reading, scaling, demosaicing, converting); when it returns `false` the decode stops and
    ///     throws "the decode was stopped".
    /// - Throws: ``ImageCodecError`` naming the cause: unknown format, corrupt or truncated data.
    package static func decode(
        _ data: Data, source: String,
        keptFraction: (_ width: Int, _ height: Int) -> Double? = { _, _ in nil },
        warn: (String) -> Void = { _ in },
        shouldContinue: (_ workDone: Int) -> Bool = { _ in true }
    )
        throws(ImageCodecError) -> Image
    {
        guard !data.isEmpty else { throw ImageCodecError("the input is empty (0 bytes)") }
        guard let format = ImageFormat.sniff(data) else { throw ImageFormat.unrecognised(data) }
        let result = data.withUnsafeBytes { bytes -> Result<Image, ImageCodecError> in
            do throws(ImageCodecError) {
                switch format {
                case .jpeg:
                    return .success(
                        try JPEGDecoder.decode(
                            bytes, source: source, keptFraction: keptFraction, warn: warn,
                            shouldContinue: shouldContinue))
                case .png:
                    return .success(try PNGCodec.decode(bytes, source: source, shouldContinue: shouldContinue))
                case .webp:
                    return .success(try WebPCodec.decode(bytes, source: source, shouldContinue: shouldContinue))
                case .tiff:
                    return .success(try TIFFCodec.decode(bytes, source: source, shouldContinue: shouldContinue))
                case .raw:
                    return .success(
                        try RawCodec.decode(
                            bytes, source: source, keptFraction: keptFraction, warn: warn,
                            shouldContinue: shouldContinue))
                case .heic, .avif:
                    guard shouldContinue(0) else { throw ImageCodecError("the decode was stopped") }
                    return .success(try HEIFCodec.decode(bytes, format: format, source: source))
                }
            } catch {
                return .failure(error)
            }
        }
        var image = try result.get()
        if let profile = image.metadata.icc {
            let converted = ColorProfile.convertToSRGB(&image, profile: profile, warn: warn)
            // The kept profile describes the pixels as they are now.
            image.metadata.icc = converted ? ColorProfile.sRGB : nil
        }
        return image
    }
}
