import FlowKit

/// An image as the store keeps it (`cache: true` on an image task, images read across shards): every field,
/// losslessly — size, the full-size picture it stands for and the scale it was decoded at, a colour step still
/// pending, the metadata it carries for `write`, and the RGBA8 pixels.
extension Image: StorableOutput {
    /// `image 2`: the version of the encoding below.
    public static var storageTag: String { "image 2" }

    /// Writes every field of the image and its pixels; an opaque image's alpha is left out.
    public func store(into blob: inout BlobWriter) throws(BlobError) {
        blob.count(width)
        blob.count(height)
        blob.count(originalWidth)
        blob.count(originalHeight)
        blob.double(decodedScale)
        blob.string(source)
        blob.count(pendingColor == nil ? 0 : 1)
        if let matrix = pendingColor {
            for row in [matrix.row0, matrix.row1, matrix.row2] {
                for lane in 0..<4 { blob.integer(UInt64(row[lane].bitPattern)) }
            }
        }
        try blob.optionalBytes(metadata.exif)
        try blob.optionalBytes(metadata.icc)
        try blob.optionalBytes(metadata.xmp)
        // A photo is opaque: its alpha bytes, a quarter of the blob, are left out and put back when read.
        if isOpaque {
            blob.count(3)
            try blob.bytes(Self.dropAlpha(pixels))
        } else {
            blob.count(4)
            try blob.bytes(pixels)
        }
    }

    private static func dropAlpha(_ rgba: [UInt8]) -> [UInt8] {
        let count = rgba.count / 4
        return [UInt8](unsafeUninitializedCapacity: count * 3) { rgb, initialized in
            rgba.withUnsafeBufferPointer { rgba in
                for pixel in 0..<count {
                    rgb[pixel * 3] = rgba[pixel * 4]
                    rgb[pixel * 3 + 1] = rgba[pixel * 4 + 1]
                    rgb[pixel * 3 + 2] = rgba[pixel * 4 + 2]
                }
            }
            initialized = count * 3
        }
    }

    private static func opaque(_ rgb: [UInt8]) -> [UInt8] {
        let count = rgb.count / 3
        return [UInt8](unsafeUninitializedCapacity: count * 4) { rgba, initialized in
            rgb.withUnsafeBufferPointer { rgb in
                for pixel in 0..<count {
                    rgba[pixel * 4] = rgb[pixel * 3]
                    rgba[pixel * 4 + 1] = rgb[pixel * 3 + 1]
                    rgba[pixel * 4 + 2] = rgb[pixel * 3 + 2]
                    rgba[pixel * 4 + 3] = 255
                }
            }
            initialized = count * 4
        }
    }

    /// Reads an image written by ``store(into:)``.
    public init(restoring blob: inout BlobReader) throws(BlobError) {
        let width = try blob.count()
        let height = try blob.count()
        let originalWidth = try blob.count()
        let originalHeight = try blob.count()
        let decodedScale = try blob.double()
        let source = try blob.string()
        var pendingColor: ColorMatrix?
        switch try blob.count() {
        case 0: break
        case 1:
            var rows: [SIMD4<Float>] = []
            for _ in 0..<3 {
                var row = SIMD4<Float>()
                for lane in 0..<4 { row[lane] = Float(bitPattern: UInt32(truncatingIfNeeded: try blob.integer())) }
                rows.append(row)
            }
            var matrix = ColorMatrix.identity
            (matrix.row0, matrix.row1, matrix.row2) = (rows[0], rows[1], rows[2])
            pendingColor = matrix
        default: throw BlobError("a damaged colour step")
        }
        let metadata = ImageMetadata(
            exif: try blob.optionalBytes(), icc: try blob.optionalBytes(), xmp: try blob.optionalBytes())
        let channels = try blob.count()
        guard channels == 3 || channels == 4 else { throw BlobError("an image of \(channels) channels") }
        let stored = try blob.bytes()
        guard stored.count % channels == 0 else { throw BlobError("a damaged pixel array") }
        let pixels = channels == 3 ? Self.opaque(stored) : stored
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height * 4) == (pixels.count, false) else {
            throw BlobError("an image of \(width)×\(height) pixels cannot hold \(pixels.count) bytes")
        }
        self.init(width: width, height: height, pixels: pixels, source: source)
        self.originalWidth = originalWidth
        self.originalHeight = originalHeight
        self.decodedScale = decodedScale
        self.pendingColor = pendingColor
        self.metadata = metadata
    }

    /// The full-size picture's size, from which `decode` picks its shrink-on-load scale.
    public var variantFacts: String { "\(originalWidth)x\(originalHeight)" }
}
