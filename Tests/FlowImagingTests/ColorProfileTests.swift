internal import CLCMS2
import Foundation
import Testing

@testable import FlowImaging

/// Photos with embedded ICC profiles — Display P3 from phones, Adobe RGB from cameras — are converted to sRGB at
/// decode. The profiles are made here with lcms2; the expected colours are computed here from the colour spaces'
/// published primaries and curves, independently of lcms2.
@Suite struct ColorProfileTests {
    /// A colour space as published: primaries (x, y), D65 white, and a transfer curve.
    struct Space {
        var red: (Double, Double)
        var green: (Double, Double)
        var blue: (Double, Double)
        /// Pure power law, or `nil` for the sRGB curve.
        var gamma: Double?

        static let displayP3 = Space(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), gamma: nil)
        static let adobeRGB = Space(red: (0.64, 0.33), green: (0.21, 0.71), blue: (0.15, 0.06), gamma: 563 / 256)
        static let sRGB = Space(red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), gamma: nil)

        func linear(_ v: Double) -> Double {
            if let gamma { return pow(v, gamma) }
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }

        /// RGB → XYZ (D65), from the primaries: columns are the primaries' XYZ scaled so that white is D65.
        var toXYZ: [[Double]] {
            let columns = [red, green, blue].map { xy in [xy.0 / xy.1, 1, (1 - xy.0 - xy.1) / xy.1] }
            let white = [0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290]
            let p = (0..<3).map { r in (0..<3).map { c in columns[c][r] } }
            let scale = Self.multiply(Self.inverse(p), white)
            return (0..<3).map { r in (0..<3).map { c in p[r][c] * scale[c] } }
        }

        /// An ICC profile of this space, made by lcms2.
        func profile() throws -> [UInt8] {
            var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
            var primaries = cmsCIExyYTRIPLE(
                Red: cmsCIExyY(x: red.0, y: red.1, Y: 1), Green: cmsCIExyY(x: green.0, y: green.1, Y: 1),
                Blue: cmsCIExyY(x: blue.0, y: blue.1, Y: 1))
            let curve: OpaquePointer?
            if let gamma {
                curve = cmsBuildGamma(nil, gamma)
            } else {
                let parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
                curve = cmsBuildParametricToneCurve(nil, 4, parameters)
            }
            defer { cmsFreeToneCurve(curve) }
            var curves: [OpaquePointer?] = [curve, curve, curve]
            let profile = try #require(cmsCreateRGBProfile(&white, &primaries, &curves))
            defer { cmsCloseProfile(profile) }
            var size: cmsUInt32Number = 0
            try #require(cmsSaveProfileToMem(profile, nil, &size) != 0)
            var bytes = [UInt8](repeating: 0, count: Int(size))
            try #require(cmsSaveProfileToMem(profile, &bytes, &size) != 0)
            return bytes
        }

        static func inverse(_ m: [[Double]]) -> [[Double]] {
            let det =
                m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
            return (0..<3).map { r in
                (0..<3).map { c in
                    let rows = [0, 1, 2].filter { $0 != c }
                    let cols = [0, 1, 2].filter { $0 != r }
                    let minor = m[rows[0]][cols[0]] * m[rows[1]][cols[1]] - m[rows[0]][cols[1]] * m[rows[1]][cols[0]]
                    return ((r + c) % 2 == 0 ? 1 : -1) * minor / det
                }
            }
        }

        static func multiply(_ m: [[Double]], _ v: [Double]) -> [Double] {
            m.map { row in zip(row, v).map(*).reduce(0, +) }
        }
    }

    /// A colour of `space` in sRGB, computed from the definitions, clipped and rounded.
    static func expectedSRGB(_ rgb: SIMD4<UInt8>, from space: Space) -> [Int] {
        let linear = (0..<3).map { space.linear(Double(rgb[$0]) / 255) }
        let xyz = Space.multiply(space.toXYZ, linear)
        let srgbLinear = Space.multiply(Space.inverse(Space.sRGB.toXYZ), xyz)
        return srgbLinear.map { v in
            let c = min(max(v, 0), 1)
            let encoded = c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055
            return Int((encoded * 255).rounded())
        }
    }

    /// Colours spread over the cube, including saturated ones that fall outside sRGB and get clipped.
    static let image = Fixtures.noise(width: 24, height: 16, seed: 17)

    static func opaque(_ image: Image) -> Image {
        var copy = image
        for i in stride(from: 3, to: copy.pixels.count, by: 4) { copy.pixels[i] = 255 }
        return copy
    }

    @Test(arguments: [("P3", Space.displayP3), ("Adobe RGB", Space.adobeRGB)])
    func pngWithAProfileDecodesToSRGB(name: String, space: Space) throws {
        let image = Self.opaque(Self.image)
        let rows = (0..<image.height).map { Array(image.pixels[$0 * image.width * 4..<($0 + 1) * image.width * 4]) }
        let iccp = Array("\(name)\0".utf8) + [0] + [UInt8](PNGFixtureWriter.zlibStored(try space.profile()))
        let png = PNGFixtureWriter.png(
            width: image.width, height: image.height, bitDepth: 8, colorType: .rgba, rows: rows,
            chunks: [("iCCP", iccp)])
        let decoded = try ImageDecoder.decode(png, source: "")
        var worst = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let expected = Self.expectedSRGB(image[x, y], from: space)
                for c in 0..<3 { worst = max(worst, abs(Int(decoded[x, y][c]) - expected[c])) }
            }
        }
        #expect(worst <= 2, "\(name): off by \(worst) levels")
        #expect(decoded.metadata.icc == ColorProfile.sRGB, "the kept profile describes the converted pixels")
        let untagged = try ImageDecoder.decode(
            PNGFixtureWriter.png(width: image.width, height: image.height, bitDepth: 8, colorType: .rgba, rows: rows),
            source: "")
        #expect(Fixtures.maxDifference(untagged, decoded) > 10, "the profile changed the colours")
    }

    @Test func jpegWithAProfileInSeveralSegmentsDecodesToSRGB() throws {
        let jpeg = try JPEGEncoder.encode(Self.opaque(Self.image), quality: 95)
        let plain = try ImageDecoder.decode(jpeg, source: "")
        // Padded past one segment, so the profile is split over two APP2 segments and must be joined.
        var profile = try Space.displayP3.profile()
        let declared = profile.count + 70000
        profile += [UInt8](repeating: 0, count: 70000)
        profile[0..<4] = [
            UInt8(declared >> 24), UInt8(declared >> 16 & 0xFF), UInt8(declared >> 8 & 0xFF), UInt8(declared & 0xFF),
        ]
        let tagged = JPEGSegments.inserting(ImageMetadata(icc: profile), into: [UInt8](jpeg))
        #expect(tagged.withUnsafeBytes { JPEGSegments.read($0) }.icc == profile)
        let decoded = try ImageDecoder.decode(Data(tagged), source: "")
        var worst = 0
        for y in 0..<plain.height {
            for x in 0..<plain.width {
                let expected = Self.expectedSRGB(plain[x, y], from: .displayP3)
                for c in 0..<3 { worst = max(worst, abs(Int(decoded[x, y][c]) - expected[c])) }
            }
        }
        #expect(worst <= 2, "off by \(worst) levels")
    }

    @Test func aDamagedProfileIsIgnoredWithAWarning() throws {
        let jpeg = try JPEGEncoder.encode(Self.opaque(Self.image), quality: 95)
        let tagged = JPEGSegments.inserting(ImageMetadata(icc: [1, 2, 3, 4, 5]), into: [UInt8](jpeg))
        var warnings: [String] = []
        let decoded = try ImageDecoder.decode(Data(tagged), source: "", warn: { warnings.append($0) })
        #expect(decoded.pixels == (try ImageDecoder.decode(jpeg, source: "")).pixels)
        #expect(warnings.contains { $0.contains("ICC profile") }, "\(warnings)")
        #expect(decoded.metadata.icc == nil)
    }
}
