import FlowKit
import Foundation
import TestSupport
import Testing

@testable import FlowImaging

/// `overlay`: placement by gravity and offset, Porter–Duff over against the formula computed here in doubles,
/// clipping, and a missing or unreadable file as a node failure.
@Suite struct OverlayTests {
    /// A folder holding `logo.png` (`logo`, written losslessly) and the overlay operation's output for `base`.
    static func overlaid(
        _ base: Image, logo: Image, _ parameters: [String: Value]
    ) throws -> Result<Image, GeometryTests.Failed> {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let png = try WriteOptionsTests.written(["path": .string("logo.png")], image: logo)
        try png.write(to: URL(fileURLWithPath: folder + "/logo.png"))
        var all = parameters
        all["path"] = all["path"] ?? .string("logo.png")
        return GeometryTests.output(OverlayOperation(context: context("overlay", all, directory: folder)), of: base)
    }

    /// Straight-alpha over, in doubles.
    static func over(_ s: SIMD4<UInt8>, _ d: SIMD4<UInt8>, opacity: Double) -> SIMD4<UInt8> {
        let aS = Double(s[3]) / 255 * opacity
        let aD = Double(d[3]) / 255
        let a = aS + aD * (1 - aS)
        guard aS > 0 else { return d }
        var out = SIMD4<UInt8>(0, 0, 0, UInt8((a * 255).rounded()))
        for c in 0..<3 {
            out[c] = UInt8(((Double(s[c]) * aS + Double(d[c]) * aD * (1 - aS)) / a).rounded())
        }
        return out
    }

    @Test(arguments: [1.0, 0.4])
    func southeastWithAnOffsetComposesOver(opacity: Double) throws {
        let base = Fixtures.noise(width: 30, height: 20, seed: 4)
        let logo = Fixtures.noise(width: 7, height: 5, seed: 9)
        let result = try Self.overlaid(
            base, logo: logo,
            ["gravity": .string("southeast"), "offsetX": .int(3), "offsetY": .int(2), "opacity": .double(opacity)]
        ).get()
        // The logo's top-left lands at (30 − 7 − 3, 20 − 5 − 2) = (20, 13).
        var wrong = 0
        for y in 0..<20 {
            for x in 0..<30 {
                let inside = (20..<27).contains(x) && (13..<18).contains(y)
                let expected = inside ? Self.over(logo[x - 20, y - 13], base[x, y], opacity: opacity) : base[x, y]
                if !Fixtures.close(result[x, y], expected, tolerance: 1) { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(wrong) pixels differ from Porter–Duff over")
    }

    @Test func anOpaqueOverlayReplacesAndATransparentBaseTakesItsColour() throws {
        let base = Image(width: 10, height: 10, filledWith: (255, 0, 0, 0))
        let logo = Image(width: 4, height: 4, filledWith: (0, 0, 255, 128))
        let result = try Self.overlaid(base, logo: logo, ["gravity": .string("northwest")]).get()
        #expect(result[0, 0] == SIMD4(0, 0, 255, 128), "the hidden red does not show through")
        #expect(result[5, 5] == SIMD4(255, 0, 0, 0))
        let solid = try Self.overlaid(
            Fixtures.gradient(width: 10, height: 10), logo: Image(width: 2, height: 2, filledWith: (9, 8, 7, 255)), [:]
        ).get()
        #expect(solid[4, 4] == SIMD4(9, 8, 7, 255) && solid[5, 5] == SIMD4(9, 8, 7, 255), "centred")
        #expect(solid[3, 3] == Fixtures.gradient(width: 10, height: 10)[3, 3])
    }

    @Test func anOverlayLargerThanTheImageIsClipped() throws {
        let base = Fixtures.gradient(width: 6, height: 4)
        let logo = Fixtures.noise(width: 10, height: 10, seed: 1)
        let result = try Self.overlaid(base, logo: logo, ["gravity": .string("centre")]).get()
        #expect(result.width == 6 && result.height == 4)
        // Centred: the logo's (2, 3) is the image's (0, 0).
        #expect(Fixtures.close(result[0, 0], Self.over(logo[2, 3], base[0, 0], opacity: 1), tolerance: 1))
    }

    @Test func aMissingOverlayFailsTheNodeNamingTheFile() throws {
        let result = try Self.overlaid(
            Fixtures.gradient(width: 6, height: 4), logo: Fixtures.gradient(width: 2, height: 2),
            ["path": .string("nope.png")])
        guard case .failure(let failure) = result else {
            Issue.record("the node should fail")
            return
        }
        #expect(failure.message == "cannot read overlay 'nope.png': no such file")
    }

    @Test func anOverlayThatIsNotAnImageFailsTheNode() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: folder + "/logo.png"))
        let result = GeometryTests.output(
            OverlayOperation(context: context("overlay", ["path": .string("logo.png")], directory: folder)),
            of: Fixtures.gradient(width: 6, height: 4))
        guard case .failure(let failure) = result else {
            Issue.record("the node should fail")
            return
        }
        #expect(failure.message.hasPrefix("cannot decode overlay 'logo.png': "), "\(failure.message)")
    }

    /// The file is a declared read (a `write` of it is refused) and part of the node's key.
    @Test func theOverlayFileIsDeclaredAndIdentified() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let values = ParameterValues(["path": .string("logo.png")])
        #expect(OverlayTask().fileAccess(values).reads.map(\.path) == ["logo.png"])
        let missing = OverlayTask().sourceIdentity(values, directory: folder, cache: nil)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder + "/logo.png"))
        let present = OverlayTask().sourceIdentity(values, directory: folder, cache: nil)
        #expect(missing != nil && present != nil && missing != present)
        let hashed = OverlayTask().sourceIdentity(values, directory: folder, cache: .content)
        #expect(hashed.map { "\($0)".contains("sha256") } == true, "\(String(describing: hashed))")
    }
}
