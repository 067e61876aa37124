import FlowKit
import Foundation

/// How `write` encodes an image: the format and its options.
package struct EncodeOptions: Sendable, Hashable {
    /// The format.
    package var format: ImageFormat
    /// JPEG, lossy WebP and AVIF quality, 1…100.
    package var quality: Int
    /// JPEG only: progressive (several scans, coarse to fine) rather than baseline.
    package var progressive: Bool
    /// WebP and AVIF: lossless (VP8L; AV1 lossless in 4:4:4 with identity matrix coefficients) rather than lossy.
    package var lossless: Bool
    /// WebP (0…6) and AVIF (0…9): how hard the encoder works for a smaller file at the same quality; `nil` for
    /// the library's default (WebP 4, AVIF 3).
    package var effort: Int?
    /// AVIF only: the chroma subsampling of lossy encoding.
    package var chroma: AVIFChroma
    /// JPEG only: the colour transparent pixels are composited over (JPEG has no alpha).
    package var background: RGBColor
    /// The metadata copied from the decoded file into the output.
    package var keep: Set<ImageMetadata.Kind>
    /// The EXIF fields dropped from kept EXIF.
    package var strip: Set<ExifField>

    /// Creates options; the defaults are `write`'s.
    package init(
        format: ImageFormat, quality: Int = 90, progressive: Bool = false, lossless: Bool = false,
        effort: Int? = nil, chroma: AVIFChroma = .yuv420, background: RGBColor = .white,
        keep: Set<ImageMetadata.Kind> = [], strip: Set<ExifField> = []
    ) {
        self.format = format
        self.quality = quality
        self.progressive = progressive
        self.lossless = lossless
        self.effort = effort
        self.chroma = chroma
        self.background = background
        self.keep = keep
        self.strip = strip
    }
}

/// The chroma subsampling of an AVIF: `420` (half-resolution colour, the default and what photos need) or `444`
/// (full-resolution colour, for sharp coloured edges: text, line art).
package enum AVIFChroma: String, Sendable, Hashable, CaseIterable, ParameterValue {
    case yuv420 = "420"
    case yuv444 = "444"

    /// The case a YAML value names, written as a number (`chroma: 444`) or a string.
    package init?(parameter value: Value) {
        switch value {
        case .string, .int: self.init(rawValue: value.description)
        default: return nil
        }
    }
}

/// Encodes images as JPEG, PNG, WebP or AVIF, with the metadata asked for.
package enum ImageEncoder {
    /// Encodes an image; a pending colour matrix is applied first.
    ///
    /// JPEG composites transparent pixels over ``EncodeOptions/background``; PNG and WebP keep alpha exactly. Kept
    /// EXIF is written with its orientation reset to 1 (the pixels are already upright); a kept colour profile is
    /// the sRGB one, since `decode` converted the pixels: JPEG gets it in `APP2` segments, PNG in an `iCCP` chunk
    /// (instead of the `sRGB` chunk libpng writes otherwise), WebP in an `ICCP` chunk of the extended container
    /// (``WebPContainer``), with the other metadata chunks.
    package static func encode(_ image: Image, _ options: EncodeOptions) throws(ImageCodecError) -> Data {
        let metadata = image.metadata.keeping(options.keep, stripping: options.strip)
        switch options.format {
        case .jpeg:
            let flat = image.composited(over: options.background)
            let jpeg = try JPEGEncoder.encode(
                pixels: flat.pixels, width: flat.width, height: flat.height, layout: .rgba, quality: options.quality,
                progressive: options.progressive)
            return Data(JPEGSegments.inserting(metadata, into: [UInt8](jpeg)))
        case .png:
            let png = try PNGCodec.encode(image)
            return Data(PNGCodec.inserting(metadata, into: [UInt8](png)))
        case .avif:
            return try HEIFCodec.encodeAVIF(
                image, quality: options.quality,
                tuning: .init(effort: options.effort, chroma: options.chroma, lossless: options.lossless),
                metadata: metadata)
        case .heic, .tiff, .raw:
            throw ImageCodecError("flowrun does not write \(options.format.displayName)")
        case .webp:
            let webp = try WebPCodec.encode(
                image, quality: options.quality, lossless: options.lossless, effort: options.effort)
            return Data(
                WebPContainer.inserting(
                    metadata, into: [UInt8](webp), width: image.width, height: image.height,
                    hasAlpha: !image.isOpaque))
        }
    }
}
