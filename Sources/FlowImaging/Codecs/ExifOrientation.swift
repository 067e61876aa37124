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

    /// Reads the orientation from a bare TIFF structure (an EXIF block); `nil` when it has no valid one, or the
    /// structure is malformed. Never reads out of bounds.
    package static func read(tiff bytes: [UInt8]) -> ExifOrientation? {
        orientationEntry(bytes).flatMap { ExifOrientation(rawValue: $0.value) }
    }

    /// Where the orientation's SHORT value sits in a bare TIFF structure (to rewrite it), if it has a valid one.
    static func orientationValueOffset(in tiff: [UInt8]) -> Int? {
        orientationEntry(tiff)?.offset
    }

    /// IFD0's tag 0x0112 (type SHORT): its value and the offset of that value.
    private static func orientationEntry(_ bytes: [UInt8]) -> (value: Int, offset: Int)? {
        guard let tiff = TIFFStructure(bytes), let ifd = tiff.firstIFD, let entry = tiff.entry(0x0112, inIFDAt: ifd),
            entry.type == 3, let value = tiff.integer(entry)
        else { return nil }
        return (value, entry.valueOffset)
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
