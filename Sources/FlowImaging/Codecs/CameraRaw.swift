/// A camera's raw file, recognised from its first bytes; ``RawCodec`` decodes it through libraw.
///
/// Most raw formats are TIFF inside and are told from an ordinary TIFF by their header or their first directory's
/// tags: Canon CR2 has "CR" after the header; DNG has a DNGVersion tag (0xC612); Nikon NEF, Sony ARW, Pentax PEF and
/// Samsung SRW are TIFF files whose first directory, made by that camera, is a reduced-resolution preview
/// (NewSubfileType 1) or points at sub-directories holding the raw data (SubIFDs, 0x014A). Fujifilm RAF, Olympus
/// ORF and Panasonic RW2 have signatures of their own, Canon CR3 is ISO media (brand `crx `).
struct CameraRaw: Equatable, Sendable {
    /// What the file is, for messages: "a Canon CR2 raw file".
    var name: String
    /// The format's usual short name, "CR2"; `probe` reports it in lower case as the file's format.
    var format: String

    /// How many bytes of a file are examined: the first directory of a raw file lies within them.
    static let bytesExamined = 1 << 16

    /// What raw file the first bytes of a file (up to ``bytesExamined``) are, or `nil` for anything else (an
    /// ordinary TIFF included).
    static func identify(_ head: [UInt8]) -> CameraRaw? {
        func starts(_ text: String) -> Bool { head.starts(with: Array(text.utf8)) }
        if starts("FUJIFILMCCD-RAW") { return CameraRaw(name: "a Fujifilm RAF raw file", format: "RAF") }
        if starts("IIRO") || starts("IIRS") || starts("MMOR") {
            return CameraRaw(name: "an Olympus ORF raw file", format: "ORF")
        }
        if head.starts(with: [0x49, 0x49, 0x55, 0]) {
            return CameraRaw(name: "a Panasonic RW2 raw file", format: "RW2")
        }
        if let brand = ISOMediaBrand(head), brand.isCameraRaw {
            return CameraRaw(name: "a Canon CR3 raw file", format: "CR3")
        }
        return identifyTIFF(head)
    }

    /// The raw formats built on TIFF.
    private static func identifyTIFF(_ head: [UInt8]) -> CameraRaw? {
        guard let tiff = TIFFStructure(head) else { return nil }
        if head.count >= 10, head[8] == 0x43, head[9] == 0x52 { return canonCR2 }
        guard let ifd = tiff.firstIFD else { return nil }
        let entries = tiff.entries(ofIFDAt: ifd)
        if entries.contains(where: { $0.tag == 0xC612 }) { return CameraRaw(name: "a DNG raw file", format: "DNG") }
        let make = entries.first { $0.tag == 0x010F }.flatMap { tiff.text($0) }?.uppercased() ?? ""
        let isPreview = entries.first { $0.tag == 0x00FE }.flatMap { tiff.integer($0) } == 1
        guard isPreview || entries.contains(where: { $0.tag == 0x014A }) else { return nil }
        let brands = [
            ("NIKON", CameraRaw(name: "a Nikon NEF raw file", format: "NEF")),
            ("SONY", CameraRaw(name: "a Sony ARW raw file", format: "ARW")),
            ("PENTAX", pentaxPEF), ("RICOH", pentaxPEF), ("CANON", canonCR2),
            ("SAMSUNG", CameraRaw(name: "a Samsung SRW raw file", format: "SRW")),
        ]
        return brands.first { make.hasPrefix($0.0) }?.1
    }

    private static let canonCR2 = CameraRaw(name: "a Canon CR2 raw file", format: "CR2")
    private static let pentaxPEF = CameraRaw(name: "a Pentax PEF raw file", format: "PEF")
}
