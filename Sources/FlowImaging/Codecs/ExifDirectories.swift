/// Every directory of an EXIF block that a reader could find: the chain of IFDs (IFD0, IFD1, …) and every
/// directory any of them points at (Exif, GPS, interoperability, SubIFDs), however often and from wherever it is
/// pointed at.
///
/// A reader such as exiftool follows a GPS pointer in IFD1 or in the Exif sub-IFD as readily as one in IFD0, and a
/// second pointer as readily as the first, so stripping must find all of them. Each directory is visited once, so a
/// pointer back to a directory already seen ends there (a loop cannot hang), and at most ``limit`` are read.
struct ExifDirectories {
    /// What a directory holds, by the pointer that leads to it.
    enum Kind: Hashable {
        /// An image's tags: IFD0, the thumbnail's IFD1 and those after it, a SubIFD.
        case image
        /// The Exif sub-IFD (0x8769).
        case exif
        /// A GPS directory (0x8825).
        case gps
        /// An interoperability directory (0xA005).
        case interoperability
    }

    /// The tags that point at a directory, and the kind of directory each leads to.
    static let pointers: [Int: Kind] = [0x8769: .exif, 0x8825: .gps, 0xA005: .interoperability, 0x014A: .image]

    /// The most directories read (real blocks have up to five or six; this bounds a crafted chain).
    static let limit = 256

    /// The offsets of the directories found, in the order found.
    private(set) var offsets: [Int] = []
    /// The kind of each directory found, by offset.
    private(set) var kinds: [Int: Kind] = [:]

    /// Walks from `roots`; `nil` when the structure cannot be told apart — one directory reached as two kinds (a
    /// GPS pointer at IFD0, say) — or when it has more than ``limit`` directories.
    ///
    /// - Parameter skippingNextOf: a directory whose next-IFD offset is not followed (IFD0, to find what the
    ///   image itself uses without its thumbnail).
    init?(_ tiff: TIFFStructure, roots: [Int], skippingNextOf skipped: Int? = nil) {
        var pending = roots.map { (offset: $0, kind: Kind.image) }
        while let (offset, kind) = pending.popLast() {
            // Offsets below 8 are the header: no directory can start there.
            guard offset >= 8, tiff.u16(offset) != nil else { continue }
            if let known = kinds[offset] {
                guard known == kind else { return nil }
                continue
            }
            guard offsets.count < Self.limit else { return nil }
            kinds[offset] = kind
            offsets.append(offset)
            // A GPS directory's tags are numbered from 0 and point at nothing.
            guard kind != .gps else { continue }
            for entry in tiff.entries(ofIFDAt: offset) {
                guard let target = Self.pointers[entry.tag] else { continue }
                pending += Self.integers(entry, in: tiff).map { ($0, target) }
            }
            if offset != skipped, let next = tiff.nextIFD(after: offset) { pending.append((next, kind)) }
        }
    }

    /// The offsets of the directories of `kind`.
    func offsets(of kind: Kind) -> [Int] { offsets.filter { kinds[$0] == kind } }

    /// Every value of a LONG, IFD or SHORT entry (a SubIFDs entry holds several), at most ``limit`` of them.
    static func integers(_ entry: TIFFStructure.Entry, in tiff: TIFFStructure) -> [Int] {
        let size: Int
        switch entry.type {
        case 3: size = 2
        case 4, 13: size = 4
        default: return []
        }
        return (0..<min(entry.count, limit)).compactMap { index in
            let at = entry.valueOffset + index * size
            return size == 2 ? tiff.u16(at) : tiff.u32(at)
        }
    }
}
