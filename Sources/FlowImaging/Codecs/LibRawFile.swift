internal import CLibRaw
import Foundation

/// One libraw handle open over a camera's raw file in memory: the sizes and camera facts its header gives, then the
/// develop (``develop(halfSize:source:warn:shouldContinue:)``).
///
/// libraw is not thread-safe per handle, so a handle belongs to one decode and is never shared; separate handles are
/// independent (flowrun links libraw_r, whose decoders keep no state in statics).
final class LibRawFile {
    private let handle: UnsafeMutablePointer<libraw_data_t>
    /// What the file is, for messages.
    let raw: CameraRaw

    /// Opens a raw file: libraw reads the header and metadata, nothing of the pixels.
    /// - Throws: When libraw does not know the camera or the file is damaged before its pixels.
    init(_ bytes: UnsafeRawBufferPointer, raw: CameraRaw) throws(ImageCodecError) {
        // libraw's default error callbacks print to stderr; the data callback is set per develop instead.
        let flags = UInt32(LIBRAW_OPIONS_NO_MEMERR_CALLBACK.rawValue | LIBRAW_OPIONS_NO_DATAERR_CALLBACK.rawValue)
        guard let handle = libraw_init(flags), let base = bytes.baseAddress else {
            throw ImageCodecError("out of memory opening \(raw.name)")
        }
        // libraw takes a mutable pointer but only reads the buffer.
        let status = libraw_open_buffer(handle, UnsafeMutableRawPointer(mutating: base), bytes.count)
        guard status == LIBRAW_SUCCESS.rawValue else {
            libraw_close(handle)
            let reason = String(cString: libraw_strerror(status))
            if status == LIBRAW_FILE_UNSUPPORTED.rawValue {
                throw ImageCodecError(
                    "this is \(raw.name) libraw \(CodecVersions.libraw) cannot open (\(reason)); "
                        + UnreadableFormat.rawAdvice)
            }
            // libraw reads past the end of a file cut short inside its header, which it reports as an I/O error.
            if status == LIBRAW_IO_ERROR.rawValue {
                throw ImageCodecError("\(raw.format) data is truncated or its header is corrupt (libraw: \(reason))")
            }
            throw ImageCodecError("corrupt \(raw.format) header (libraw: \(reason))")
        }
        self.handle = handle
        self.raw = raw
    }

    deinit { libraw_close(handle) }

    /// The picture's size as stored (the visible area, before the orientation is applied).
    var storedSize: (width: Int, height: Int) {
        (Int(handle.pointee.sizes.width), Int(handle.pointee.sizes.height))
    }

    /// The size of the sensor data libraw allocates to unpack (margins included).
    var sensorSize: (width: Int, height: Int) {
        (Int(handle.pointee.sizes.raw_width), Int(handle.pointee.sizes.raw_height))
    }

    /// The orientation libraw applies when it develops (its `flip`, from the file's orientation tag or the maker's).
    var orientation: ExifOrientation {
        // libraw's flip: bit 4 transposes, bit 2 mirrors the rows, bit 1 the columns (`flip_index`).
        switch handle.pointee.sizes.flip & 7 {
        case 1: .upMirrored
        case 2: .downMirrored
        case 3: .down
        case 4: .leftMirrored
        case 5: .left
        case 6: .right
        case 7: .rightMirrored
        default: .up
        }
    }

    /// The size of a full develop: the orientation applied, non-square pixels stretched as libraw does.
    var developedSize: (width: Int, height: Int) {
        var (width, height) = storedSize
        let aspect = handle.pointee.sizes.pixel_aspect
        if aspect < 0.995, aspect > 0 { height = Int((Double(height) / aspect).rounded()) }
        if aspect > 1.005 { width = Int((Double(width) * aspect).rounded()) }
        return orientation.swapsAxes ? (height, width) : (width, height)
    }

    /// What libraw read of the camera and the exposure.
    var shot: RawShot {
        let other = handle.pointee.other
        let gps = other.parsed_gps
        return RawShot(
            make: Self.text(handle.pointee.idata.make), model: Self.text(handle.pointee.idata.model),
            lens: Self.text(handle.pointee.lens.Lens), taken: other.timestamp > 0 ? Int(other.timestamp) : nil,
            exposureTime: Double(other.shutter), fNumber: Double(other.aperture), iso: Double(other.iso_speed),
            focalLength: Double(other.focal_len),
            position: gps.gpsparsed == 0
                ? nil
                : RawShot.Position(
                    latitude: [gps.latitude.0, gps.latitude.1, gps.latitude.2].map(Double.init),
                    latitudeReference: UInt8(bitPattern: gps.latref),
                    longitude: [gps.longitude.0, gps.longitude.1, gps.longitude.2].map(Double.init),
                    longitudeReference: UInt8(bitPattern: gps.longref), altitude: Double(gps.altitude),
                    belowSeaLevel: gps.altref == 1))
    }

    /// Develops the picture: demosaic (libraw's default, AHD), the camera's white balance as shot, sRGB (primaries
    /// and tone curve), 8 bits, no automatic brightening, the orientation applied.
    /// - Parameters:
    ///   - halfSize: Each 2×2 block of sensor pixels becomes one pixel, without demosaicing (libraw's `half_size`):
    ///     half of each side, for shrink-on-load.
    ///   - shouldContinue: Asked at every step libraw reports — the start and end of each stage (reading the data,
    ///     scaling, interpolating, converting), about ten a develop — with the number of steps done; `false` stops
    ///     the develop, which then throws. libraw's C API reports nothing inside a stage.
    func develop(
        halfSize: Bool, source: String, warn: (String) -> Void, shouldContinue: (_ stepsDone: Int) -> Bool
    ) throws(ImageCodecError) -> Image {
        handle.pointee.params.use_camera_wb = 1
        handle.pointee.params.output_color = 1  // sRGB
        handle.pointee.params.output_bps = 8
        // sRGB's tone curve (libraw's default is BT.709's, 0.45 and 4.5): every other decoder gives sRGB.
        handle.pointee.params.gamm.0 = 1 / 2.4
        handle.pointee.params.gamm.1 = 12.92
        // Brightening from the histogram would make a half-size develop differ from a full one in brightness.
        handle.pointee.params.no_auto_bright = 1
        handle.pointee.params.half_size = halfSize ? 1 : 0
        // The watch holds the non-escaping `shouldContinue`: it must not outlive this call, so only its findings leave.
        let findings = withoutActuallyEscaping(shouldContinue) { check -> LibRawWatch.Findings in
            let watch = LibRawWatch(check)
            let context = Unmanaged.passUnretained(watch).toOpaque()
            libraw_set_progress_handler(
                handle,
                { context, _, _, _ in
                    guard let context else { return 0 }
                    return Unmanaged<LibRawWatch>.fromOpaque(context).takeUnretainedValue().step() ? 0 : 1
                }, context)
            libraw_set_dataerror_handler(
                handle,
                { context, _, offset in
                    guard let context else { return }
                    Unmanaged<LibRawWatch>.fromOpaque(context).takeUnretainedValue().dataError(at: Int(offset))
                }, context)
            var status = libraw_unpack(handle)
            if status == LIBRAW_SUCCESS.rawValue { status = libraw_dcraw_process(handle) }
            libraw_set_progress_handler(handle, nil, nil)
            libraw_set_dataerror_handler(handle, nil, nil)
            var findings = watch.findings
            findings.status = status
            return findings
        }
        if findings.status == LIBRAW_CANCELLED_BY_CALLBACK.rawValue { throw ImageCodecError("the decode was stopped") }
        if findings.endOfFile {
            throw ImageCodecError("\(raw.format) data is truncated (libraw reached the end of the file)")
        }
        guard findings.status == LIBRAW_SUCCESS.rawValue else {
            throw ImageCodecError(
                "cannot develop the \(raw.format) (libraw: \(String(cString: libraw_strerror(findings.status))))")
        }
        if let offset = findings.corruptAt {
            warn("corrupt \(raw.format) data near byte \(offset); libraw developed it anyway")
        }
        return try image(source: source)
    }

    /// The developed pixels as RGBA.
    private func image(source: String) throws(ImageCodecError) -> Image {
        var status: Int32 = 0
        guard let developed = libraw_dcraw_make_mem_image(handle, &status) else {
            throw ImageCodecError(
                "cannot develop the \(raw.format) (libraw: \(String(cString: libraw_strerror(status))))")
        }
        defer { libraw_dcraw_clear_mem(developed) }
        let width = Int(developed.pointee.width)
        let height = Int(developed.pointee.height)
        let colors = Int(developed.pointee.colors)
        guard developed.pointee.type == LIBRAW_IMAGE_BITMAP, developed.pointee.bits == 8, colors == 3 || colors == 1,
            width > 0, height > 0, Int(developed.pointee.data_size) >= width * height * colors
        else { throw ImageCodecError("the \(raw.format) developed to no 8-bit RGB pixels") }
        let offset = MemoryLayout<libraw_processed_image_t>.offset(of: \.data) ?? 0
        let samples = (UnsafeRawPointer(developed) + offset).assumingMemoryBound(to: UInt8.self)
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, initialized in
            for index in 0..<width * height {
                let from = samples + index * colors
                out[index * 4] = from[0]
                out[index * 4 + 1] = from[colors == 3 ? 1 : 0]
                out[index * 4 + 2] = from[colors == 3 ? 2 : 0]
                out[index * 4 + 3] = 255
            }
            initialized = width * height * 4
        }
        return Image(width: width, height: height, pixels: pixels, source: source)
    }

    /// A C string in a fixed-size field of libraw's structures.
    private static func text<Field>(_ field: Field) -> String? {
        let value = withUnsafeBytes(of: field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
        return value.isEmpty ? nil : value
    }
}

/// What libraw's callbacks report during one develop: the steps (asking whether to go on) and data errors.
private final class LibRawWatch {
    /// What a develop ended with.
    struct Findings {
        var status: Int32 = 0
        /// libraw read past the end of the file: it is truncated.
        var endOfFile = false
        /// Where libraw found data it could not decode, when it carried on.
        var corruptAt: Int?
    }

    let shouldContinue: (Int) -> Bool
    /// libraw is built with OpenMP: its callbacks are not promised to come from the calling thread.
    private let lock = NSLock()
    private var steps = 0
    private var found = Findings()

    init(_ shouldContinue: @escaping (Int) -> Bool) { self.shouldContinue = shouldContinue }

    /// What the callbacks reported.
    var findings: Findings { lock.withLock { found } }

    func step() -> Bool {
        lock.withLock {
            steps += 1
            return shouldContinue(steps)
        }
    }

    func dataError(at offset: Int) {
        lock.withLock {
            // libraw passes -1 at the end of the file, else the offset of the damaged data.
            if offset < 0 {
                found.endOfFile = true
            } else if found.corruptAt == nil {
                found.corruptAt = offset
            }
        }
    }
}
