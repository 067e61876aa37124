internal import CTurboJPEG
internal import CWebP
import FlowBasics
import FlowKit
import Foundation

/// What `probe` reports about an image file, read from its header and metadata without decoding pixels.
struct ImageProbe {
    var format: ImageFormat
    /// The name `probe` reports: the format's (`jpeg`), or a raw file's own in lower case (`dng`, `cr2`, `nef`).
    var formatName: String
    /// The size as shown: after the orientation is applied (HEIF's own rotation included).
    var width: Int
    var height: Int
    /// The EXIF orientation `decode` applies (EXIF's tag, else XMP's); 1 for HEIC and AVIF, whose own rotation is
    /// already in ``width`` and ``height``.
    var orientation: ExifOrientation
    /// The ICC profile's description, or `nil` without a profile (the pixels are then taken as sRGB).
    var colorProfile: String?
    var hasAlpha: Bool
    var exif: ExifSummary?

    /// Probes an image file.
    /// - Throws: The error `decode` would give for a file it does not read.
    init(_ data: Data) throws(ImageCodecError) {
        guard !data.isEmpty else { throw ImageCodecError("the input is empty (0 bytes)") }
        guard let format = ImageFormat.sniff(data) else { throw ImageFormat.unrecognised(data) }
        self.format = format
        formatName =
            format == .raw
            ? (CameraRaw.identify(Array(data.prefix(CameraRaw.bytesExamined)))?.format.lowercased() ?? "raw")
            : format.rawValue
        let result = data.withUnsafeBytes { bytes -> Result<Header, ImageCodecError> in
            do throws(ImageCodecError) {
                return .success(try Self.header(bytes, format: format))
            } catch {
                return .failure(error)
            }
        }
        let header = try result.get()
        let metadata = header.metadata
        orientation = header.orientation ?? metadata.orientation
        (width, height) = orientation.swapsAxes ? (header.height, header.width) : (header.width, header.height)
        hasAlpha = header.hasAlpha
        colorProfile = metadata.icc.flatMap { ColorProfile.name(of: $0) ?? "unreadable" }
        if format == .tiff {
            exif = TIFFStructure([UInt8](data)).map(ExifSummary.init)
        } else {
            exif = metadata.exif.flatMap(TIFFStructure.init).map(ExifSummary.init)
        }
    }

    /// What a file's header says.
    private struct Header {
        /// The size as stored.
        var width: Int
        var height: Int
        var hasAlpha: Bool
        var metadata: ImageMetadata
        /// The orientation when the format states it outside the metadata (TIFF's tag, HEIF's own rotation).
        var orientation: ExifOrientation?
    }

    /// The stored size, alpha and metadata, from the header and the metadata blocks only.
    private static func header(_ bytes: UnsafeRawBufferPointer, format: ImageFormat) throws(ImageCodecError)
        -> Header
    {
        switch format {
        case .jpeg:
            let header = try JPEGDecoder.header(bytes, handle: try TurboJPEGHandle.decompressor())
            return Header(
                width: header.width, height: header.height, hasAlpha: false, metadata: JPEGSegments.read(bytes))
        case .png:
            guard bytes.count >= 33, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
                throw ImageCodecError("corrupt PNG header (no IHDR chunk first)")
            }
            let width = Int(bytes[16]) << 24 | Int(bytes[17]) << 16 | Int(bytes[18]) << 8 | Int(bytes[19])
            let height = Int(bytes[20]) << 24 | Int(bytes[21]) << 16 | Int(bytes[22]) << 8 | Int(bytes[23])
            let chunks = PNGChunks(bytes)
            let alpha = bytes[25] == 4 || bytes[25] == 6 || chunks.hasTransparency
            return Header(width: width, height: height, hasAlpha: alpha, metadata: chunks.metadata)
        case .webp:
            var features = WebPBitstreamFeatures()
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                WebPGetFeatures(base, bytes.count, &features) == VP8_STATUS_OK
            else { throw ImageCodecError("corrupt WebP header") }
            return Header(
                width: Int(features.width), height: Int(features.height), hasAlpha: features.has_alpha != 0,
                metadata: RIFFChunks(bytes).metadata)
        case .tiff:
            let (info, metadata) = try TIFFCodec.header(bytes)
            return Header(
                width: Int(info.width), height: Int(info.height), hasAlpha: info.has_alpha != 0, metadata: metadata,
                orientation: ExifOrientation(rawValue: Int(info.orientation)) ?? .up)
        case .heic, .avif:
            let file = try HEIFFile(bytes, format: format)
            return Header(
                width: file.size.width, height: file.size.height, hasAlpha: file.hasAlpha, metadata: file.metadata,
                orientation: .up)
        case .raw:
            // libraw's orientation (the file's tag, or the maker's own field) is the one `decode` applies.
            let file = try RawCodec.open(bytes)
            return Header(
                width: file.storedSize.width, height: file.storedSize.height, hasAlpha: false,
                metadata: ImageMetadata(exif: file.shot.exif), orientation: file.orientation)
        }
    }

    /// The JSON object `probe` writes for a file from `source`: every key present (`null` when unknown), keys sorted.
    func json(source: String) -> Data {
        func number(_ value: Double?) -> JSONValue { JSONValue(value.map { ($0 * 1e6).rounded() / 1e6 }) }
        let object: JSONValue = [
            "source": .string(source), "format": .string(formatName), "width": .integer(width),
            "height": .integer(height), "orientation": .integer(orientation.rawValue),
            "colorProfile": JSONValue(colorProfile), "alpha": .bool(hasAlpha),
            "dateTaken": JSONValue(exif?.dateTaken), "make": JSONValue(exif?.make), "model": JSONValue(exif?.model),
            "lens": JSONValue(exif?.lens), "exposureTime": number(exif?.exposureTime),
            "fNumber": number(exif?.fNumber), "iso": JSONValue(exif?.iso), "focalLength": number(exif?.focalLength),
            "latitude": number(exif?.latitude), "longitude": number(exif?.longitude),
            "altitude": number(exif?.altitude),
        ]
        return Data(object.sortingKeys().json())
    }
}
