import Foundation

/// A TIFF block laid out from named parts in order (the first is IFD0), so that any directory can point at any
/// other: twice, back at itself, from IFD1. Each part's size does not depend on the offsets, so two passes lay it out.
struct ExifLayout {
    enum Value {
        case ascii(String)
        case rationals([(Int, Int)])
        /// A LONG holding the offset of a part.
        case offset(String)
        /// A LONG holding the size of a part.
        case size(String)
    }

    struct Entry {
        var tag: Int
        var value: Value
        init(_ tag: Int, _ value: Value) {
            self.tag = tag
            self.value = value
        }
    }

    enum Part {
        case directory([Entry], next: String? = nil)
        case blob([UInt8])
    }

    var bigEndian: Bool
    var parts: [(name: String, part: Part)]

    /// A JPEG of `photo` with `exif` in an APP1 segment right after its start-of-image marker.
    static func jpeg(_ photo: Data, exif: [UInt8]) -> Data {
        let payload = Array("Exif\0\0".utf8) + exif
        let length = payload.count + 2
        return photo.prefix(2) + Data([0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload)
            + photo.dropFirst(2)
    }

    func u16(_ v: Int) -> [UInt8] {
        bigEndian ? [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]
    }
    func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
    func rationals(_ values: [(Int, Int)]) -> [UInt8] { values.flatMap { u32($0.0) + u32($0.1) } }

    func bytes() -> [UInt8] {
        var offsets: [String: Int] = [:]
        var sizes: [String: Int] = [:]
        var at = 8
        for (name, part) in parts {
            offsets[name] = at
            sizes[name] = encode(part, at: at, offsets: [:], sizes: [:]).count
            at += sizes[name]!
        }
        var out = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8)
        for (name, part) in parts { out += encode(part, at: offsets[name]!, offsets: offsets, sizes: sizes) }
        return out
    }

    private func encode(_ part: Part, at offset: Int, offsets: [String: Int], sizes: [String: Int]) -> [UInt8] {
        switch part {
        case .blob(let bytes): return bytes + (bytes.count % 2 == 1 ? [0] : [])
        case .directory(let entries, let next):
            var head = u16(entries.count)
            var tail: [UInt8] = []
            let dataStart = offset + 2 + entries.count * 12 + 4
            for entry in entries {
                let (type, count, bytes): (Int, Int, [UInt8])
                switch entry.value {
                case .ascii(let text): (type, count, bytes) = (2, text.utf8.count + 1, Array(text.utf8) + [0])
                case .rationals(let values): (type, count, bytes) = (5, values.count, rationals(values))
                case .offset(let name): (type, count, bytes) = (4, 1, u32(offsets[name] ?? 0))
                case .size(let name): (type, count, bytes) = (4, 1, u32(sizes[name] ?? 0))
                }
                head += u16(entry.tag) + u16(type) + u32(count)
                if bytes.count <= 4 {
                    head += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    head += u32(dataStart + tail.count)
                    tail += bytes + (bytes.count % 2 == 1 ? [0] : [])
                }
            }
            return head + u32(next.flatMap { offsets[$0] } ?? 0) + tail
        }
    }
}
