import FlowKit
import Foundation
import Testing

@testable import FlowImaging

/// `resize`'s `withoutEnlargement`, `fit: inside` and `fit: cover` with a `position`, including the smart crops,
/// and what shrink-on-load makes of them.
@Suite struct ResizeOptionsTests {
    static func spec(_ values: [String: Value]) throws -> ResizeSpec {
        try #require(ResizeTask().resizeSpec(ParameterValues(values)))
    }

    /// The output size of a 1366 × 2048 portrait (the issue's) under each rule.
    @Test(arguments: [
        (["width": .int(1600)] as [String: Value], 1600, 2399),
        (["width": .int(1600), "withoutEnlargement": .bool(true)], 1366, 2048),
        (["width": .int(683), "withoutEnlargement": .bool(true)], 683, 1024),
        (["scale": .double(2), "withoutEnlargement": .bool(true)], 1366, 2048),
        (["height": .int(3000), "withoutEnlargement": .bool(true)], 1366, 2048),
        (["width": .int(3000), "height": .int(3000), "fit": .string("inside")], 1366, 2048),
        (["width": .int(3000), "height": .int(3000), "fit": .string("contain")], 2001, 3000),
        (
            ["width": .int(3000), "height": .int(3000), "fit": .string("inside"), "withoutEnlargement": .bool(false)],
            2001, 3000
        ),
        (["width": .int(2000), "height": .int(2000), "fit": .string("inside")], 1334, 2000),
        (["width": .int(500), "height": .int(500), "fit": .string("inside")], 333, 500),
        (
            ["width": .int(2000), "height": .int(1000), "fit": .string("fill"), "withoutEnlargement": .bool(true)],
            1366, 1000
        ),
        (
            ["width": .int(2000), "height": .int(1000), "fit": .string("cover"), "withoutEnlargement": .bool(true)],
            1366, 1000
        ),
        (
            ["width": .int(2000), "height": .int(3000), "fit": .string("cover"), "withoutEnlargement": .bool(true)],
            1366, 2048
        ),
        (["width": .int(2000), "height": .int(1000), "fit": .string("cover")], 2000, 1000),
    ])
    func sizes(values: [String: Value], width: Int, height: Int) throws {
        let size = try Self.spec(values).outputSize(width: 1366, height: 2048)
        #expect(size.width == width && size.height == height, "\(values): \(size)")
    }

    /// A resize that would enlarge keeps the pixels as they are (no resampling at all).
    @Test func withoutEnlargementLeavesASmallImageUntouched() throws {
        let image = Fixtures.noise(width: 30, height: 20, seed: 2)
        let result = try GeometryTests.image(
            ResizeOperation(context: context("resize", ["width": .int(100), "withoutEnlargement": .bool(true)])),
            of: image)
        #expect(result.width == 30 && result.height == 20 && result.pixels == image.pixels)
    }

    /// Cover on the quadrant picture (A B / C D): the crop keeps the side the position names.
    @Test(arguments: [("west", 0, 2), ("east", 1, 3), ("centre", -1, -1)])
    func coverCropsAtTheGravity(position: String, top: Int, bottom: Int) throws {
        let image = Fixtures.quadrants(width: 80, height: 40)
        let result = try GeometryTests.image(
            ResizeOperation(
                context: context(
                    "resize",
                    ["width": .int(10), "height": .int(10), "fit": .string("cover"), "position": .string(position)])),
            of: image)
        #expect(result.width == 10 && result.height == 10)
        guard top >= 0 else {
            // Centred, the crop straddles the vertical boundary: left half A/C, right half B/D.
            #expect(Fixtures.close(result[1, 1], Fixtures.quadrantColors[0], tolerance: 2))
            #expect(Fixtures.close(result[8, 8], Fixtures.quadrantColors[3], tolerance: 2))
            return
        }
        #expect(Fixtures.close(result[5, 1], Fixtures.quadrantColors[top], tolerance: 2), "\(result[5, 1])")
        #expect(Fixtures.close(result[5, 8], Fixtures.quadrantColors[bottom], tolerance: 2), "\(result[5, 8])")
    }

    /// Flat grey on the left, detail on the right: entropy keeps the detail.
    @Test func entropyKeepsTheDetailedPart() throws {
        var image = Image(width: 90, height: 30, filledWith: (128, 128, 128, 255))
        let noise = Fixtures.noise(width: 30, height: 30, seed: 6)
        for y in 0..<30 {
            for x in 60..<90 {
                let p = noise[x - 60, y]
                image.pixels.replaceSubrange((y * 90 + x) * 4..<(y * 90 + x) * 4 + 4, with: [p[0], p[1], p[2], 255])
            }
        }
        let origin = try #require(CropPosition.entropy.origin(of: 30, 30, in: image))
        #expect(origin.x == 60 && origin.y == 0)
        let uniform = Image(width: 90, height: 30, filledWith: (128, 128, 128, 255))
        let centred = try #require(CropPosition.entropy.origin(of: 30, 30, in: uniform))
        #expect(abs(centred.x - 30) <= 4, "a uniform picture is cropped in the middle: \(centred)")
    }

    /// A skin-toned patch with edges on a plain background: attention keeps it.
    @Test func attentionKeepsTheSkinTonedDetail() throws {
        var image = Image(width: 120, height: 40, filledWith: (90, 110, 130, 255))
        for y in 10..<30 {
            for x in 85..<105 where (x / 3 + y / 3) % 2 == 0 {
                image.pixels.replaceSubrange((y * 120 + x) * 4..<(y * 120 + x) * 4 + 3, with: [220, 160, 130])
            }
        }
        let origin = try #require(CropPosition.attention.origin(of: 40, 40, in: image))
        #expect(origin.x <= 85 && origin.x + 40 >= 105, "\(origin)")
        let result = try GeometryTests.image(
            ResizeOperation(
                context: context(
                    "resize",
                    ["width": .int(20), "height": .int(20), "fit": .string("cover"), "position": .string("attention")])),
            of: image)
        #expect(result.width == 20 && result.height == 20)
    }

    // MARK: shrink-on-load

    /// A resize that would enlarge needs the full picture: no reduced decode.
    @Test func withoutEnlargementDecodesInFullWhenTheResizeKeepsTheSize() throws {
        let keep = ConsumerAnalysis.keptFraction(
            consumers: [consumer(ResizeTask(), ["width": .int(5000), "withoutEnlargement": .bool(true)])],
            width: 4000, height: 3000)
        #expect(keep == nil)
        let cover = ConsumerAnalysis.keptFraction(
            consumers: [
                consumer(
                    ResizeTask(),
                    ["width": .int(400), "height": .int(400), "fit": .string("cover"), "position": .string("entropy")])
            ],
            width: 4000, height: 3000)
        // Cover scales 3000 → 400 on the short side: 400/3000 of each side, times the margin.
        #expect(cover.map { abs($0 - 400.0 / 3000 * ConsumerAnalysis.qualityMargin) < 1e-9 } == true)
    }

    /// Shrink-on-load looks through a flip and a quarter turn, with the sides swapped by the turn; not through a
    /// rotation by another angle or a crop.
    @Test func shrinkOnLoadLooksThroughFlipsAndQuarterTurns() {
        let resize = consumer(ResizeTask(), ["width": .int(300)])
        func kept(_ first: any TaskType, _ values: [String: Value]) -> Double? {
            ConsumerAnalysis.keptFraction(
                consumers: [consumer(first, values, then: [resize])], width: 4000, height: 3000)
        }
        let margin = ConsumerAnalysis.qualityMargin
        #expect(
            kept(FlipTask(), ["direction": .string("vertical")]).map { abs($0 - 300.0 / 4000 * margin) < 1e-9 } == true)
        // Turned, the picture is 3000 wide: 300 px keeps a tenth.
        #expect(kept(RotateTask(), ["angle": .double(90)]).map { abs($0 - 300.0 / 3000 * margin) < 1e-9 } == true)
        #expect(kept(RotateTask(), ["angle": .double(180)]).map { abs($0 - 300.0 / 4000 * margin) < 1e-9 } == true)
        #expect(kept(RotateTask(), ["angle": .double(30)]) == nil)
        #expect(kept(CropTask(), ["aspect": .string("1:1")]) == nil)
        #expect(kept(BlurTask(), ["sigma": .double(2)]) == nil)
    }

    /// Decoded at a reduced scale, turned and resized, the thumbnail is the literal one within the usual margin.
    @Test func aQuarterTurnAfterShrinkOnLoadLinesUpWithTheLiteralPipeline() throws {
        let jpeg = try ImageEncoder.encode(
            Fixtures.gradient(width: 640, height: 480),
            EncodeOptions(format: .jpeg, quality: 95, progressive: false, lossless: false, background: .white, keep: [])
        )
        let resize = consumer(ResizeTask(), ["width": .int(96)])
        let turn = consumer(RotateTask(), ["angle": .double(90)], then: [resize])
        func thumbnail(optimize: Bool) throws -> Image {
            let decoded = try ImageDecoder.decode(
                jpeg, source: "",
                keptFraction: { w, h in
                    optimize ? ConsumerAnalysis.keptFraction(consumers: [turn], width: w, height: h) : nil
                })
            #expect((decoded.decodedScale < 1) == optimize, "decoded at \(decoded.decodedScale)")
            let turned = decoded.rotated(quarterTurns: 1)
            return turned.resized(try Self.spec(["width": .int(96)]))
        }
        let literal = try thumbnail(optimize: false)
        let optimised = try thumbnail(optimize: true)
        #expect(literal.width == 96 && literal.height == 128)
        #expect(optimised.width == 96 && optimised.height == 128)
        #expect(Fixtures.maxDifference(literal, optimised) <= 3)
    }
}
