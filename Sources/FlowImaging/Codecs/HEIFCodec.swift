internal import CHEIF
import Foundation

/// Reads HEIC and AVIF, and writes AVIF, through libheif (libde265 decodes HEVC, dav1d AV1; libaom encodes AV1).
///
/// The primary image is decoded to 8-bit RGBA (10- and 12-bit images reduced), turned by the file's own rotation and
/// mirroring (`irot`, `imir`: HEIF's orientation, which takes precedence over the EXIF tag, as the format requires);
/// an ICC profile (`colr` of type `prof`) is converted to sRGB by ``ImageDecoder``. libheif 1.15 cannot stop a decode
/// midway: the check comes before and after it.
enum HEIFCodec {
    /// Decodes the primary image of a HEIC or AVIF file.
    static func decode(_ bytes: UnsafeRawBufferPointer, format: ImageFormat, source: String) throws(ImageCodecError)
        -> Image
    {
        let file = try HEIFFile(bytes, format: format)
        let (width, height) = file.size
        try PixelBudget.check(width: width, height: height, making: "the \(format.displayName)")
        let options = heif_decoding_options_alloc()
        defer { heif_decoding_options_free(options) }
        options?.pointee.convert_hdr_to_8bit = 1
        var decoded: OpaquePointer?
        try check(
            heif_decode_image(file.handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options),
            "cannot decode the \(format.displayName)")
        defer { heif_image_release(decoded) }
        var stride: Int32 = 0
        let outWidth = Int(heif_image_get_width(decoded, heif_channel_interleaved))
        let outHeight = Int(heif_image_get_height(decoded, heif_channel_interleaved))
        guard outWidth > 0, outHeight > 0, outWidth * outHeight <= width * height,
            let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride)
        else { throw ImageCodecError("the \(format.displayName) decoded to no pixels") }
        let rowBytes = outWidth * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * outHeight) { out, initialized in
            initialized = rowBytes * outHeight
            guard let base = out.baseAddress else { return }
            for row in 0..<outHeight {
                (base + row * rowBytes).update(from: plane + row * Int(stride), count: rowBytes)
            }
        }
        var image = Image(width: outWidth, height: outHeight, pixels: pixels, source: source)
        image.metadata = file.metadata
        return image
    }

    /// How an AVIF is encoded besides its quality.
    struct AVIFTuning: Sendable, Hashable {
        /// 0 (fastest) to 9 (smallest): libaom's speed, reversed (sharp's `effort`); `nil` keeps libaom's 6.
        var effort: Int? = nil
        var chroma: AVIFChroma = .yuv420
        /// AV1 lossless, in 4:4:4 with identity matrix coefficients (RGB as it is), so pixels come back exactly.
        var lossless = false
    }

    /// Encodes an image as AVIF (AV1 at `quality`, alpha kept as an auxiliary image) with `metadata`.
    static func encodeAVIF(_ image: Image, quality: Int, tuning: AVIFTuning = .init(), metadata: ImageMetadata)
        throws(ImageCodecError) -> Data
    {
        let image = image.materialized()
        guard let context = heif_context_alloc() else { throw ImageCodecError("out of memory encoding AVIF") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_AV1, &encoder), "no AV1 encoder")
        defer { heif_encoder_release(encoder) }
        if tuning.lossless {
            try check(heif_encoder_set_lossless(encoder, 1), "cannot encode AVIF losslessly")
            try check(heif_encoder_set_parameter_boolean(encoder, "lossless-alpha", 1), "cannot keep alpha exactly")
        } else {
            try check(heif_encoder_set_lossy_quality(encoder, Int32(min(max(quality, 1), 100))), "cannot set quality")
        }
        let chroma = tuning.lossless ? AVIFChroma.yuv444 : tuning.chroma
        try check(heif_encoder_set_parameter_string(encoder, "chroma", chroma.rawValue), "cannot set chroma")
        if let effort = tuning.effort {
            try check(
                heif_encoder_set_parameter_integer(encoder, "speed", Int32(9 - min(max(effort, 0), 9))),
                "cannot set the AVIF effort")
        }
        var picture: OpaquePointer?
        try check(
            heif_image_create(
                Int32(image.width), Int32(image.height), heif_colorspace_RGB,
                image.isOpaque ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RGBA, &picture),
            "cannot create the AVIF image")
        defer { heif_image_release(picture) }
        try check(
            heif_image_add_plane(picture, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8),
            "cannot create the AVIF image")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride) else {
            throw ImageCodecError("cannot create the AVIF image")
        }
        image.pixels.withUnsafeBufferPointer { rgba in
            let channels = image.isOpaque ? 3 : 4
            for y in 0..<image.height {
                let row = plane + y * Int(stride)
                for x in 0..<image.width {
                    for c in 0..<channels { row[x * channels + c] = rgba[(y * image.width + x) * 4 + c] }
                }
            }
        }
        if let icc = metadata.icc {
            _ = icc.withUnsafeBytes { heif_image_set_raw_color_profile(picture, "prof", $0.baseAddress, $0.count) }
        }
        // Lossless keeps RGB as it is (matrix coefficients 0, full range): a YCbCr conversion would round.
        let options = heif_encoding_options_alloc()
        defer { heif_encoding_options_free(options) }
        let nclx = tuning.lossless ? heif_nclx_color_profile_alloc() : nil
        defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
        if let nclx, let options {
            nclx.pointee.matrix_coefficients = heif_matrix_coefficients_RGB_GBR
            nclx.pointee.full_range_flag = 1
            options.pointee.output_nclx_profile = nclx
            try check(heif_image_set_nclx_color_profile(picture, nclx), "cannot mark the AVIF as RGB")
        }
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, picture, encoder, options, &handle), "AVIF encoding failed")
        defer { heif_image_handle_release(handle) }
        if let exif = metadata.exif {
            try check(
                exif.withUnsafeBytes {
                    heif_context_add_exif_metadata(context, handle, $0.baseAddress, Int32($0.count))
                },
                "cannot add EXIF to the AVIF")
        }
        if let xmp = metadata.xmp {
            try check(
                xmp.withUnsafeBytes { heif_context_add_XMP_metadata(context, handle, $0.baseAddress, Int32($0.count)) },
                "cannot add XMP to the AVIF")
        }
        return try write(context)
    }

    /// The file a context holds, through libheif's writer callback.
    private static func write(_ context: OpaquePointer) throws(ImageCodecError) -> Data {
        final class Sink { var data = Data() }
        let sink = Sink()
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, data, size, user in
            if let user, let data {
                Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().data.append(
                    data.assumingMemoryBound(to: UInt8.self), count: size)
            }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        let status = withExtendedLifetime(sink) {
            heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque())
        }
        try check(status, "cannot write the AVIF")
        return sink.data
    }

    /// Throws `what` with libheif's message unless `error` says all went well.
    static func check(_ error: heif_error, _ what: String) throws(ImageCodecError) {
        guard error.code != heif_error_Ok else { return }
        throw ImageCodecError("\(what) (\(detail(of: error)))")
    }

    /// libheif's message for `error`, copied: the text belongs to the context (or handle) that returned it and is
    /// freed with it, so it must be read before that is released.
    static func detail(of error: heif_error) -> String {
        error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
    }
}

/// A HEIF file open over bytes in memory, and its primary image's handle: the size and metadata without decoding.
final class HEIFFile {
    let context: OpaquePointer
    let handle: OpaquePointer

    /// Opens the file and its primary image.
    init(_ bytes: UnsafeRawBufferPointer, format: ImageFormat) throws(ImageCodecError) {
        guard let context = heif_context_alloc() else { throw ImageCodecError("out of memory reading HEIF") }
        var handle: OpaquePointer?
        var status = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil)
        if status.code == heif_error_Ok { status = heif_context_get_primary_image_handle(context, &handle) }
        guard let handle else {
            // The message lives in the context: copied before the context is freed (reading it after was a
            // use-after-free that printed random bytes).
            let detail = status.code == heif_error_Ok ? "no primary image" : HEIFCodec.detail(of: status)
            heif_context_free(context)
            throw ImageCodecError("corrupt \(format.displayName) (\(detail))")
        }
        self.context = context
        self.handle = handle
    }

    deinit {
        heif_image_handle_release(handle)
        heif_context_free(context)
    }

    /// The primary image's size as shown (rotation applied).
    var size: (width: Int, height: Int) {
        (Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle)))
    }

    /// Whether the primary image has an alpha channel.
    var hasAlpha: Bool { heif_image_handle_has_alpha_channel(handle) != 0 }

    /// The ICC profile, EXIF (as a bare TIFF structure) and XMP of the primary image.
    var metadata: ImageMetadata {
        var metadata = ImageMetadata()
        let type = heif_image_handle_get_color_profile_type(handle)
        if type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC {
            let size = heif_image_handle_get_raw_color_profile_size(handle)
            var profile = [UInt8](repeating: 0, count: size)
            if size > 0, heif_image_handle_get_raw_color_profile(handle, &profile).code == heif_error_Ok {
                metadata.icc = profile
            }
        }
        // An EXIF block starts with the offset of its TIFF header, big-endian, after those four bytes.
        if let exif = block(type: "Exif"), exif.count > 8 {
            let offset = Int(exif[0]) << 24 | Int(exif[1]) << 16 | Int(exif[2]) << 8 | Int(exif[3])
            if offset + 12 <= exif.count { metadata.exif = Array(exif[(4 + offset)...]) }
        }
        metadata.xmp = block(type: "mime", contentType: "application/rdf+xml")
        return metadata
    }

    /// The first metadata block of `type` (and content type, for `mime` blocks), if any.
    private func block(type: String, contentType: String? = nil) -> [UInt8]? {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, type))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, type, &ids, Int32(count)))
        for id in ids.prefix(listed) {
            if let contentType, String(cString: heif_image_handle_get_metadata_content_type(handle, id)) != contentType
            {
                continue
            }
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0, size <= 16 << 20 else { continue }
            var bytes = [UInt8](repeating: 0, count: size)
            if heif_image_handle_get_metadata(handle, id, &bytes).code == heif_error_Ok { return bytes }
        }
        return nil
    }
}
