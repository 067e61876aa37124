/// The orientation an XMP packet states (`tiff:Orientation`, as an attribute or an element), read and reset as
/// Pillow does: a file with no EXIF orientation may carry one there (editors that write XMP only).
enum XMPOrientation {
    /// The two ways XMP writes the property; the value follows each directly.
    private static let prefixes = [
        Array("tiff:Orientation=\"".utf8), Array("tiff:Orientation='".utf8), Array("<tiff:Orientation>".utf8),
    ]

    /// The orientation in the packet, if it states a valid one.
    static func read(_ xmp: [UInt8]) -> ExifOrientation? {
        valueOffset(in: xmp).flatMap { ExifOrientation(rawValue: Int(xmp[$0]) - 0x30) }
    }

    /// The packet with its orientation set to 1, for pixels already turned upright.
    static func upright(_ xmp: [UInt8]) -> [UInt8] {
        guard let at = valueOffset(in: xmp) else { return xmp }
        var copy = xmp
        copy[at] = 0x31
        return copy
    }

    /// Where the one-digit value of the first `tiff:Orientation` is.
    private static func valueOffset(in xmp: [UInt8]) -> Int? {
        for prefix in prefixes {
            guard let start = firstRange(of: prefix, in: xmp) else { continue }
            let value = start + prefix.count
            guard value + 1 < xmp.count, (0x31...0x38).contains(xmp[value]),
                [0x22, 0x27, 0x3C].contains(xmp[value + 1])
            else { continue }
            return value
        }
        return nil
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = 0
        while index + needle.count <= haystack.count {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
