/// An opaque sRGB colour, as `write`'s `background` names it: `#rrggbb`, `#rgb`, `white` or `black`.
package struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    /// The red, green and blue levels, 0…255.
    package var red, green, blue: UInt8

    /// Creates a colour from its levels.
    package init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// White, the default background: what a page behind a transparent picture usually is.
    package static let white = RGBColor(red: 255, green: 255, blue: 255)

    /// Parses `#rrggbb`, `#rgb` (hex digits, any case), `white` or `black`; `nil` otherwise.
    package init?(_ text: String) {
        switch text.lowercased() {
        case "white": self = .white
        case "black": self.init(red: 0, green: 0, blue: 0)
        default:
            guard text.hasPrefix("#"), text.count == 4 || text.count == 7,
                let value = UInt32(text.dropFirst(), radix: 16)
            else { return nil }
            if text.count == 4 {
                self.init(
                    red: UInt8(value >> 8 & 0xF) * 17, green: UInt8(value >> 4 & 0xF) * 17,
                    blue: UInt8(value & 0xF) * 17)
            } else {
                self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
            }
        }
    }

    package var description: String {
        "#"
            + [red, green, blue].map {
                String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
            }
            .joined()
    }
}

extension Image {
    /// The image composited over an opaque colour (`out = c·α + background·(1 − α)`, rounded), fully opaque: what
    /// a format without alpha (JPEG) must store, instead of the colour hidden under transparent pixels.
    package func composited(over background: RGBColor) -> Image {
        let image = materialized()
        guard !image.isOpaque else { return image }
        let bg = [UInt32(background.red), UInt32(background.green), UInt32(background.blue)]
        var result = image
        result.pixels = image.pixels.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: source.count) { out, initialized in
                var i = 0
                while i < source.count {
                    let alpha = UInt32(source[i + 3])
                    for c in 0..<3 {
                        out[i + c] = UInt8((UInt32(source[i + c]) * alpha + bg[c] * (255 - alpha) + 127) / 255)
                    }
                    out[i + 3] = 255
                    i += 4
                }
                initialized = source.count
            }
        }
        return result
    }
}
