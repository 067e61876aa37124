import FlowKit

/// An image as the store keeps it (`cache: true` on an image task, images read across shards): every field,
/// losslessly — size, the full-size picture it stands for and the scale it was decoded at, a colour step still
/// pending, the metadata it carries for `write`, and the RGBA8 pixels.
extension Image: StorableOutput {
    public static var storageTag: String { "image 1" }

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
        try blob.bytes(pixels)
    }

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
        let pixels = try blob.bytes()
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
