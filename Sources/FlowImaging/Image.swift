import FlowKit

/// A decoded image: 8-bit RGBA pixels, row by row, without padding, not premultiplied.
///
/// Besides its pixels an image remembers the size of the full-resolution picture it stands for
/// (``originalWidth`` × ``originalHeight``). They differ from ``width`` × ``height`` only when `decode`
/// used shrink-on-load (TurboJPEG's DCT scaling) because every consumer downsamples anyway; `resize`
/// computes its target from the original size, so `scale: 0.3` means 30 % of the photo, whatever scale
/// the decoder chose.
///
/// An image may also carry a pending colour matrix that a colour task (`sepia`) did not apply yet
/// because every consumer is a downsampling `resize`, which applies it to the rows as it reads them (no full-size
/// buffer in between).
/// Anything else that reads pixels calls ``materialized()`` first.
public struct Image: Sendable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// The pixels: `width * height * 4` bytes, R, G, B, A, rows top to bottom.
    public var pixels: [UInt8]
    /// Where the image came from (a path or a URL), for messages and naming.
    public var source: String
    /// The width of the full-resolution image this one represents (equal to ``width`` unless shrunk on load).
    public var originalWidth: Int
    /// The height of the full-resolution image this one represents (equal to ``height`` unless shrunk on load).
    public var originalHeight: Int
    /// A colour matrix still to be applied to every pixel; `nil` when the pixels are final.
    package var pendingColor: ColorMatrix?
    /// The factor the decoder scaled the original by (1, or e.g. 1/2 after shrink-on-load).
    ///
    /// The stored pixels cover exactly `originalWidth × decodedScale` pixels' worth of picture, which may be less
    /// than ``width`` (683 px at 1/2 decode to 342 pixels, the last one half covered); `resize` maps coordinates
    /// with it so that a shrunk image lines up with the full one.
    package var decodedScale: Double
    /// The EXIF, colour profile and XMP of the file it was decoded from, for `write`'s `keep`.
    package var metadata = ImageMetadata()

    /// Creates an image from RGBA8 pixels.
    /// - Parameters:
    ///   - width: The width in pixels, at least 1.
    ///   - height: The height in pixels, at least 1.
    ///   - pixels: `width * height * 4` bytes of RGBA.
    ///   - source: Where the image came from.
    ///   - originalSize: The full-resolution size it represents; `nil` for its own size.
    public init(
        width: Int, height: Int, pixels: [UInt8], source: String = "",
        originalSize: (width: Int, height: Int)? = nil
    ) {
        precondition(width > 0 && height > 0, "an image has at least one pixel")
        precondition(pixels.count == width * height * 4, "RGBA8 needs width * height * 4 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.source = source
        self.originalWidth = originalSize?.width ?? width
        self.originalHeight = originalSize?.height ?? height
        self.pendingColor = nil
        self.decodedScale = originalSize == nil ? 1 : Double(width) / Double(originalSize?.width ?? width)
    }

    /// Creates an image of one colour.
    public init(width: Int, height: Int, filledWith rgba: (UInt8, UInt8, UInt8, UInt8), source: String = "") {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            pixels[index] = rgba.0
            pixels[index + 1] = rgba.1
            pixels[index + 2] = rgba.2
            pixels[index + 3] = rgba.3
        }
        self.init(width: width, height: height, pixels: pixels, source: source)
    }

    /// The number of bytes in one row.
    public var bytesPerRow: Int { width * 4 }

    /// The RGBA value of one pixel (of the stored pixels, ignoring a pending colour matrix).
    public subscript(x: Int, y: Int) -> SIMD4<UInt8> {
        let index = (y * width + x) * 4
        return SIMD4(pixels[index], pixels[index + 1], pixels[index + 2], pixels[index + 3])
    }

    /// The image with its pending colour matrix applied, and nothing pending.
    public func materialized() -> Image {
        guard let matrix = pendingColor else { return self }
        var copy = self
        copy.pendingColor = nil
        matrix.apply(to: &copy.pixels)
        return copy
    }

    /// Whether every pixel is fully opaque.
    ///
    /// Resize and write ask it of every image: the alpha bytes are tested eight pixels at a time, as the bits of
    /// four 64-bit words (a byte at a time, the scan of a full-size photo cost a few per cent of the pipeline).
    public var isOpaque: Bool {
        pixels.withUnsafeBytes { buffer in
            let alpha: UInt64 = 0xFF00_0000_FF00_0000
            var index = 0
            while index + 32 <= buffer.count {
                let a = buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let b = buffer.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
                let c = buffer.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self)
                let d = buffer.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
                if a & b & c & d & alpha != alpha { return false }
                index += 32
            }
            while index + 4 <= buffer.count {
                if buffer[index + 3] != 255 { return false }
                index += 4
            }
            return true
        }
    }
}

/// An operation whose output is an ``Image`` (kind `image`), e.g. `decode`, `sepia`, `resize`.
///
/// ## Implementation requirements
///
/// Return the image once the operation has finished successfully, and `nil` before that or after the runner
/// released the output. Implement it as `output(as: Image.self)`. Consumers that read pixels other than
/// `resize` must call ``Image/materialized()``, since the image may carry a pending colour matrix.
public protocol ImageProvider: AnyObject, Sendable {
    /// The image this operation produced.
    var providedImage: Image? { get }
}
