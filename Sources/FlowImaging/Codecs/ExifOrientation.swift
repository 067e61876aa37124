/// The eight EXIF orientations (tag 0x0112): how the stored pixels must be turned to be shown upright.
///
/// Browsers apply it (CSS `image-orientation: from-image` is the default), and so does `decode`.
package enum ExifOrientation: Int, Sendable, Hashable, CaseIterable {
    /// Stored upright.
    case up = 1
    /// Mirrored left to right.
    case upMirrored = 2
    /// Upside down.
    case down = 3
    /// Mirrored top to bottom.
    case downMirrored = 4
    /// Mirrored along the top-left to bottom-right diagonal (transposed).
    case leftMirrored = 5
    /// Needs a 90° clockwise turn.
    case right = 6
    /// Mirrored along the top-right to bottom-left diagonal (transversed).
    case rightMirrored = 7
    /// Needs a 90° counter-clockwise turn.
    case left = 8

    /// Whether width and height swap.
    package var swapsAxes: Bool { rawValue >= 5 }

    /// Reads the orientation from a JPEG's APP1 Exif segment; `.up` when there is none or it is malformed.
    ///
    /// Walks the markers from SOI to SOS; in the TIFF structure, honours both byte orders (`II`, `MM`) and
    /// reads tag 0x0112 (type SHORT) of IFD0. Never reads out of bounds.
    package static func read<Bytes: RandomAccessCollection<UInt8>>(jpeg bytes: Bytes) -> ExifOrientation
    where Bytes.Index == Int {
        let b = bytes
        let start = b.startIndex
        let end = b.endIndex
        guard b.count > 4, b[start] == 0xFF, b[start + 1] == 0xD8 else { return .up }
        var i = start + 2
        while i + 4 <= end {
            guard b[i] == 0xFF else { return .up }
            let marker = b[i + 1]
            if marker == 0xFF {
                i += 1
                continue
            }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return .up }  // start of scan / end of image
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= end else { return .up }
            let body = i + 4
            let bodyEnd = i + 2 + length
            if marker == 0xE1, bodyEnd - body >= 14,
                Array(b[body..<body + 6]) == [0x45, 0x78, 0x69, 0x66, 0, 0]
            {  // "Exif\0\0"
                return tiffOrientation(b, from: body + 6, to: bodyEnd) ?? .up
            }
            i = bodyEnd
        }
        return .up
    }

    /// Reads the orientation from a bare TIFF structure (a PNG's `eXIf` chunk); `.up` when it has none or it is
    /// malformed.
    package static func read(tiff bytes: [UInt8]) -> ExifOrientation {
        tiffOrientation(bytes, from: 0, to: bytes.count) ?? .up
    }

    static func tiffOrientation<Bytes: RandomAccessCollection<UInt8>>(_ b: Bytes, from tiff: Int, to end: Int)
        -> ExifOrientation? where Bytes.Index == Int
    {
        guard let entry = orientationEntry(b, from: tiff, to: end) else { return nil }
        return ExifOrientation(rawValue: entry.value)
    }

    /// Where the orientation's SHORT value sits in a bare TIFF structure (to rewrite it), if it has a valid one.
    static func orientationValueOffset(in tiff: [UInt8]) -> Int? {
        orientationEntry(tiff, from: 0, to: tiff.count)?.offset
    }

    /// IFD0's tag 0x0112 (type SHORT): its value and the offset of that value.
    private static func orientationEntry<Bytes: RandomAccessCollection<UInt8>>(
        _ b: Bytes, from tiff: Int, to end: Int
    ) -> (value: Int, offset: Int)? where Bytes.Index == Int {
        guard end - tiff >= 8 else { return nil }
        let little: Bool
        switch (b[tiff], b[tiff + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= tiff, at + 2 <= end else { return nil }
            return little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let hi = u16(little ? at + 2 : at), let lo = u16(little ? at : at + 2) else { return nil }
            return hi << 16 | lo
        }
        guard u16(tiff + 2) == 42, let ifd = u32(tiff + 4), let count = u16(tiff + ifd) else { return nil }
        for entry in 0..<count {
            let at = tiff + ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112 {
                guard u16(at + 2) == 3, let value = u16(at + 8) else { return nil }
                return (value, at + 8 - tiff)
            }
        }
        return nil
    }
}

extension Image {
    /// The image turned upright according to an EXIF orientation, as browsers show it.
    package func oriented(_ orientation: ExifOrientation) -> Image {
        guard orientation != .up else { return self }
        let w = width
        let h = height
        let outW = orientation.swapsAxes ? h : w
        let outH = orientation.swapsAxes ? w : h
        // Straight into the bytes of the result: a [UInt32] and a copy of it to [UInt8] made the peak three
        // buffers of the image's size (3 GB for a 246-megapixel JPEG found by fuzzing), not two.
        let bytes = [UInt8](unsafeUninitializedCapacity: w * h * 4) { buffer, initialized in
            pixels.withUnsafeBytes { raw in
                let src = raw.bindMemory(to: UInt32.self)
                UnsafeMutableRawBufferPointer(buffer).withMemoryRebound(to: UInt32.self) { dst in
                    for y in 0..<outH {
                        for x in 0..<outW {
                            let sx: Int
                            let sy: Int
                            switch orientation {
                            case .up: (sx, sy) = (x, y)
                            case .upMirrored: (sx, sy) = (w - 1 - x, y)
                            case .down: (sx, sy) = (w - 1 - x, h - 1 - y)
                            case .downMirrored: (sx, sy) = (x, h - 1 - y)
                            case .leftMirrored: (sx, sy) = (y, x)
                            case .right: (sx, sy) = (y, h - 1 - x)
                            case .rightMirrored: (sx, sy) = (w - 1 - y, h - 1 - x)
                            case .left: (sx, sy) = (w - 1 - y, x)
                            }
                            dst[y * outW + x] = src[sy * w + sx]
                        }
                    }
                }
            }
            initialized = w * h * 4
        }
        let original = orientation.swapsAxes ? (originalHeight, originalWidth) : (originalWidth, originalHeight)
        var result = Image(width: outW, height: outH, pixels: bytes, source: source, originalSize: original)
        result.decodedScale = decodedScale
        result.pendingColor = pendingColor
        result.metadata = metadata
        return result
    }
}
