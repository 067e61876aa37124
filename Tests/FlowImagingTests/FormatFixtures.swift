import CHEIF
import CTIFF
import Foundation

@testable import FlowImaging

/// Image files the format tests make with the libraries themselves: TIFF through libtiff, HEIC through libheif's
/// HEVC encoder (x265).
enum FormatFixtures {
    /// How a TIFF fixture is laid out.
    struct TIFFLayout {
        var bitsPerSample = 8
        var samplesPerPixel = 3
        /// Tiles of this size (a multiple of 16), or strips of `rowsPerStrip` rows when `nil`.
        var tile: Int?
        var rowsPerStrip = 5
        var orientation = 1
        /// An extra sample: 2 unassociated alpha, 1 associated.
        var extraSample: Int?
    }

    /// A TIFF of `samples` (row by row, `samplesPerPixel` per pixel, each 8 or 16 bits) written by libtiff, with
    /// further pages (`pages`, each 8-bit RGB of the size given) after it.
    static func tiff(
        width: Int, height: Int, samples: [Int], layout: TIFFLayout, pages: [(width: Int, height: Int)] = []
    ) throws -> Data {
        let path = NSTemporaryDirectory() + "flowimaging-tiff-" + UUID().uuidString + ".tif"
        defer { unlink(path) }
        guard let tif = TIFFOpen(path, "w") else { throw FixtureError("libtiff cannot create \(path)") }
        writePage(tif, width: width, height: height, samples: samples, layout: layout)
        for page in pages {
            TIFFWriteDirectory(tif)
            let flat = [Int](repeating: 200, count: page.width * page.height * 3)
            writePage(tif, width: page.width, height: page.height, samples: flat, layout: TIFFLayout())
        }
        TIFFClose(tif)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    private static func set(_ tif: OpaquePointer, _ tag: Int32, _ values: any CVarArg...) {
        _ = withVaList(values) { TIFFVSetField(tif, UInt32(tag), $0) }
    }

    private static func writePage(
        _ tif: OpaquePointer, width: Int, height: Int, samples: [Int], layout: TIFFLayout
    ) {
        let channels = layout.samplesPerPixel
        set(tif, TIFFTAG_IMAGEWIDTH, Int32(width))
        set(tif, TIFFTAG_IMAGELENGTH, Int32(height))
        set(tif, TIFFTAG_BITSPERSAMPLE, Int32(layout.bitsPerSample))
        set(tif, TIFFTAG_SAMPLESPERPIXEL, Int32(channels))
        set(tif, TIFFTAG_PHOTOMETRIC, Int32(channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK))
        set(tif, TIFFTAG_PLANARCONFIG, Int32(PLANARCONFIG_CONTIG))
        set(tif, TIFFTAG_COMPRESSION, Int32(COMPRESSION_ADOBE_DEFLATE))
        set(tif, TIFFTAG_ORIENTATION, Int32(layout.orientation))
        var extra = [UInt16(layout.extraSample ?? 0)]
        if layout.extraSample != nil {
            extra.withUnsafeMutableBufferPointer { set(tif, TIFFTAG_EXTRASAMPLES, Int32(1), $0.baseAddress!) }
        }
        let bytesPerSample = layout.bitsPerSample / 8
        func bytes(ofRow y: Int, from x0: Int, count: Int) -> [UInt8] {
            var out: [UInt8] = []
            for x in x0..<x0 + count {
                for c in 0..<channels {
                    let value = x < width && y < height ? samples[(y * width + x) * channels + c] : 0
                    // Native byte order: libtiff writes the file in the machine's.
                    out += bytesPerSample == 2 ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value)]
                }
            }
            return out
        }
        if let tile = layout.tile {
            set(tif, TIFFTAG_TILEWIDTH, Int32(tile))
            set(tif, TIFFTAG_TILELENGTH, Int32(tile))
            for ty in stride(from: 0, to: height, by: tile) {
                for tx in stride(from: 0, to: width, by: tile) {
                    var buffer = (ty..<ty + tile).flatMap { bytes(ofRow: $0, from: tx, count: tile) }
                    TIFFWriteTile(tif, &buffer, UInt32(tx), UInt32(ty), 0, 0)
                }
            }
        } else {
            set(tif, TIFFTAG_ROWSPERSTRIP, Int32(layout.rowsPerStrip))
            for y in 0..<height {
                var row = bytes(ofRow: y, from: 0, count: width)
                TIFFWriteScanline(tif, &row, UInt32(y), 0)
            }
        }
    }

    /// A HEIC of `image` (opaque) encoded by libheif's HEVC encoder at `quality`.
    static func heic(_ image: Image, quality: Int = 90) throws -> Data {
        guard let context = heif_context_alloc() else { throw FixtureError("libheif: no context") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try HEIFCodec.check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "encoder")
        defer { heif_encoder_release(encoder) }
        try HEIFCodec.check(heif_encoder_set_lossy_quality(encoder, Int32(quality)), "quality")
        var picture: OpaquePointer?
        try HEIFCodec.check(
            heif_image_create(
                Int32(image.width), Int32(image.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &picture),
            "image")
        defer { heif_image_release(picture) }
        try HEIFCodec.check(
            heif_image_add_plane(picture, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8),
            "plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride) else {
            throw FixtureError("libheif: no plane")
        }
        for y in 0..<image.height {
            for x in 0..<image.width {
                for c in 0..<3 { plane[y * Int(stride) + x * 3 + c] = image.pixels[(y * image.width + x) * 4 + c] }
            }
        }
        var handle: OpaquePointer?
        try HEIFCodec.check(heif_context_encode_image(context, picture, encoder, nil, &handle), "encode")
        heif_image_handle_release(handle)
        let path = NSTemporaryDirectory() + "flowimaging-heic-" + UUID().uuidString + ".heic"
        defer { unlink(path) }
        try HEIFCodec.check(heif_context_write_to_file(context, path), "write")
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// Builds TIFF structures (EXIF blocks, or the first directory of a file) entry by entry, in either byte order.
struct TIFFBuilder {
    /// An entry: tag, field type, value count, and the values' bytes (in the builder's byte order).
    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        var bytes: [UInt8]
    }

    var bigEndian = false

    func u16(_ v: Int) -> [UInt8] {
        bigEndian ? [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]
    }
    func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }

    func ascii(_ tag: Int, _ text: String) -> Entry {
        Entry(tag: tag, type: 2, count: text.utf8.count + 1, bytes: Array(text.utf8) + [0])
    }
    func short(_ tag: Int, _ value: Int) -> Entry { Entry(tag: tag, type: 3, count: 1, bytes: u16(value)) }
    func long(_ tag: Int, _ value: Int) -> Entry { Entry(tag: tag, type: 4, count: 1, bytes: u32(value)) }
    func rationals(_ tag: Int, _ values: [(Int, Int)]) -> Entry {
        Entry(tag: tag, type: 5, count: values.count, bytes: values.flatMap { u32($0.0) + u32($0.1) })
    }

    /// The bytes one directory takes at `offset`: its entries, the next offset, then the values too long to fit.
    func directory(_ entries: [Entry], at offset: Int, next: Int = 0) -> [UInt8] {
        var head = u16(entries.count)
        var tail: [UInt8] = []
        let dataStart = offset + 2 + entries.count * 12 + 4
        for entry in entries.sorted(by: { $0.tag < $1.tag }) {
            head += u16(entry.tag) + u16(entry.type) + u32(entry.count)
            if entry.bytes.count <= 4 {
                head += entry.bytes + [UInt8](repeating: 0, count: 4 - entry.bytes.count)
            } else {
                head += u32(dataStart + tail.count)
                tail += entry.bytes + (entry.bytes.count % 2 == 1 ? [0] : [])
            }
        }
        return head + u32(next) + tail
    }

    /// Its size at any offset.
    func size(_ entries: [Entry]) -> Int { directory(entries, at: 0).count }

    /// A TIFF structure with IFD0, and the EXIF and GPS directories IFD0 points at when given.
    func structure(ifd0: [Entry], exif: [Entry] = [], gps: [Entry] = [], ifd1: [Entry] = []) -> [UInt8] {
        let pointers = (exif.isEmpty ? 0 : 1) + (gps.isEmpty ? 0 : 1)
        let ifd0Size = size(ifd0 + [Entry](repeating: long(0, 0), count: pointers))
        let exifAt = 8 + ifd0Size
        let gpsAt = exifAt + (exif.isEmpty ? 0 : size(exif))
        let ifd1At = gpsAt + (gps.isEmpty ? 0 : size(gps))
        var main = ifd0
        if !exif.isEmpty { main.append(long(0x8769, exifAt)) }
        if !gps.isEmpty { main.append(long(0x8825, gpsAt)) }
        var out = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8)
        out += directory(main, at: 8, next: ifd1.isEmpty ? 0 : ifd1At)
        if !exif.isEmpty { out += directory(exif, at: exifAt) }
        if !gps.isEmpty { out += directory(gps, at: gpsAt) }
        if !ifd1.isEmpty { out += directory(ifd1, at: ifd1At) }
        return out
    }

    /// A camera's EXIF: make, model, date, lens, exposure, a serial number, and a GPS position (43.480233 N,
    /// 2.5936 W, 1250 m).
    static func cameraExif(bigEndian: Bool = false, orientation: Int? = nil) -> [UInt8] {
        let b = TIFFBuilder(bigEndian: bigEndian)
        var ifd0 = [b.ascii(0x010F, "FUJIFILM"), b.ascii(0x0110, "X-T5")]
        if let orientation { ifd0.append(b.short(0x0112, orientation)) }
        return b.structure(
            ifd0: ifd0,
            exif: [
                b.ascii(0x9003, "2024:06:01 14:03:22"), b.ascii(0x9011, "+02:00"),
                b.rationals(0x829A, [(1, 250)]), b.rationals(0x829D, [(28, 10)]), b.short(0x8827, 400),
                b.rationals(0x920A, [(350, 10)]), b.ascii(0xA434, "XF35mmF1.4 R"), b.ascii(0xA431, "SERIAL-123456"),
            ],
            gps: [
                b.ascii(1, "N"), b.rationals(2, [(43, 1), (28, 1), (48_84, 100)]),
                b.ascii(3, "W"), b.rationals(4, [(2, 1), (35, 1), (36_96, 100)]),
                Entry(tag: 5, type: 1, count: 1, bytes: [0]), b.rationals(6, [(1250, 1)]),
            ])
    }
}
