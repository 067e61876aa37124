/// The metadata a decoded image carries from its file, for `write`'s `keep`: EXIF, the colour profile, XMP.
///
/// `decode` has already applied what the pixels need — the EXIF orientation, the colour profile (converted to
/// sRGB) — so what is kept describes the pixels as they are: ``icc`` then holds an sRGB profile, and a kept EXIF
/// block has its orientation reset to 1 when written.
package struct ImageMetadata: Sendable, Hashable {
    /// The EXIF block as a bare TIFF structure (without JPEG's "Exif\0\0" prefix), or `nil`.
    package var exif: [UInt8]?
    /// The ICC colour profile describing the pixels, or `nil` when the file had none (sRGB is then assumed).
    package var icc: [UInt8]?
    /// The XMP packet (XML), or `nil`.
    package var xmp: [UInt8]?

    /// No metadata.
    package init(exif: [UInt8]? = nil, icc: [UInt8]? = nil, xmp: [UInt8]? = nil) {
        self.exif = exif
        self.icc = icc
        self.xmp = xmp
    }

    /// The prefix of an EXIF block in a JPEG APP1 segment: "Exif\0\0".
    static let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
    /// The prefix of an XMP packet in a JPEG APP1 segment.
    static let xmpPrefix = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// The orientation: EXIF's tag, else XMP's `tiff:Orientation` (as Pillow reads it), else `.up`.
    package var orientation: ExifOrientation {
        if let exif, let tagged = ExifOrientation.read(tiff: exif) { return tagged }
        return xmp.flatMap(XMPOrientation.read) ?? .up
    }

    /// The EXIF block with its orientation tag set to 1 (upright), for writing pixels that are already turned.
    var exifUpright: [UInt8]? {
        guard var tiff = exif else { return nil }
        if let at = ExifOrientation.orientationValueOffset(in: tiff) {
            let little = tiff[0] == 0x49
            tiff[at] = little ? 1 : 0
            tiff[at + 1] = little ? 0 : 1
        }
        return tiff
    }

    /// The metadata with only the kinds listed, the EXIF without the fields in `stripped`, and the orientation
    /// of EXIF and XMP reset to upright.
    func keeping(_ kinds: Set<Kind>, stripping stripped: Set<ExifField> = []) -> ImageMetadata {
        ImageMetadata(
            exif: kinds.contains(.exif) ? exifUpright.flatMap { ExifField.strip(stripped, from: $0) } : nil,
            icc: kinds.contains(.icc) ? icc : nil,
            xmp: kinds.contains(.xmp) ? xmp.map(XMPOrientation.upright) : nil)
    }

    /// The kinds of metadata `write` can keep.
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case exif, icc, xmp
    }
}
