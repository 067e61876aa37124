import FlowKit
import Foundation
import Testing

@testable import FlowImaging

/// `flip`, `rotate` and `crop`: whole pixels move, so each is compared bit for bit with the same mapping written
/// out independently, pixel by pixel.
@Suite struct GeometryTests {
    /// A node failure's message.
    struct Failed: Error { var message: String }

    /// Runs one image operation on `image` and returns its output image (or the failure message).
    static func output(_ operation: ImageOperation, of image: Image) -> Result<Image, GeometryTests.Failed> {
        let outcome = run(operation, after: ImageSourceOperation(image))
        if let message = failureMessage(outcome) { return .failure(Failed(message: message)) }
        guard let result = operation.providedImage else {
            return .failure(Failed(message: "no output (\(String(describing: outcome)))"))
        }
        return .success(result)
    }

    static func image(_ operation: ImageOperation, of image: Image) throws -> Image {
        try output(operation, of: image).get()
    }

    /// An image whose pixels are all different (odd sizes, so a centre row and column exist).
    static let source = Fixtures.noise(width: 37, height: 23, seed: 5)

    /// `expected(x, y)` for every pixel of `result`, which must be `width` × `height`.
    static func expectPixels(
        _ result: Image, width: Int, height: Int, _ expected: (Int, Int) -> SIMD4<UInt8>,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(result.width == width && result.height == height, sourceLocation: sourceLocation)
        guard result.width == width, result.height == height else { return }
        var wrong = 0
        for y in 0..<height {
            for x in 0..<width where result[x, y] != expected(x, y) { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) pixels differ", sourceLocation: sourceLocation)
    }

    @Test func flipHorizontalMirrorsEachRow() throws {
        let s = Self.source
        let flipped = try Self.image(
            FlipOperation(context: context("flip", ["direction": .string("horizontal")])), of: s)
        Self.expectPixels(flipped, width: s.width, height: s.height) { x, y in s[s.width - 1 - x, y] }
    }

    @Test func flipVerticalMirrorsEachColumn() throws {
        let s = Self.source
        let flipped = try Self.image(FlipOperation(context: context("flip", ["direction": .string("vertical")])), of: s)
        Self.expectPixels(flipped, width: s.width, height: s.height) { x, y in s[x, s.height - 1 - y] }
    }

    /// Clockwise 90°: the output's first row is the source's first column read upwards.
    @Test(arguments: [90.0, -270.0, 450.0])
    func rotateQuarterClockwise(angle: Double) throws {
        let s = Self.source
        let turned = try Self.image(RotateOperation(context: context("rotate", ["angle": .double(angle)])), of: s)
        Self.expectPixels(turned, width: s.height, height: s.width) { x, y in s[y, s.height - 1 - x] }
    }

    @Test(arguments: [180.0, -180.0])
    func rotateHalfTurn(angle: Double) throws {
        let s = Self.source
        let turned = try Self.image(RotateOperation(context: context("rotate", ["angle": .double(angle)])), of: s)
        Self.expectPixels(turned, width: s.width, height: s.height) { x, y in s[s.width - 1 - x, s.height - 1 - y] }
    }

    /// Anticlockwise 90°: the output's first row is the source's last column read downwards.
    @Test(arguments: [270.0, -90.0])
    func rotateQuarterAnticlockwise(angle: Double) throws {
        let s = Self.source
        let turned = try Self.image(RotateOperation(context: context("rotate", ["angle": .double(angle)])), of: s)
        Self.expectPixels(turned, width: s.height, height: s.width) { x, y in s[s.width - 1 - y, x] }
    }

    /// A tile edge (64) inside the picture, and the original size swapped with the pixels.
    @Test func rotateALargerImageKeepsItsOriginalSizeTurned() throws {
        var s = Fixtures.noise(width: 150, height: 70, seed: 9)
        s.originalWidth = 300
        s.originalHeight = 140
        let turned = try Self.image(RotateOperation(context: context("rotate", ["angle": .double(90)])), of: s)
        Self.expectPixels(turned, width: 70, height: 150) { x, y in s[y, s.height - 1 - x] }
        #expect(turned.originalWidth == 140 && turned.originalHeight == 300)
        #expect(turned.decodedScale == s.decodedScale)
    }

    /// Quarter and half turns of a picture wider than the kernel's 128-pixel tiles, with sizes that leave partial
    /// 4 × 4 blocks and a band of rows that is not a multiple of 4: pixel for pixel.
    @Test(arguments: [90.0, 180.0, 270.0])
    func rotateAcrossTilesAndBlocksIsExact(angle: Double) throws {
        let s = Fixtures.noise(width: 261, height: 134, seed: 4)
        let turned = try Self.image(RotateOperation(context: context("rotate", ["angle": .double(angle)])), of: s)
        switch angle {
        case 90: Self.expectPixels(turned, width: s.height, height: s.width) { x, y in s[y, s.height - 1 - x] }
        case 180:
            Self.expectPixels(turned, width: s.width, height: s.height) { x, y in
                s[s.width - 1 - x, s.height - 1 - y]
            }
        default: Self.expectPixels(turned, width: s.height, height: s.width) { x, y in s[s.width - 1 - y, x] }
        }
    }

    /// The largest channel difference between `turned` and bilinear sampling of `source` turned `degrees`
    /// clockwise onto the opaque `background`, written out in doubles.
    static func largestBilinearDifference(
        _ turned: Image, from source: Image, degrees: Double, background: SIMD4<Double>
    ) -> Int {
        let radians = degrees * .pi / 180
        let (w, h) = (source.width, source.height)
        var worst = 0
        for y in 0..<turned.height {
            for x in 0..<turned.width {
                let dx = Double(x) + 0.5 - Double(turned.width) / 2
                let dy = Double(y) + 0.5 - Double(turned.height) / 2
                let sx = cos(radians) * dx + sin(radians) * dy + Double(w) / 2 - 0.5
                let sy = -sin(radians) * dx + cos(radians) * dy + Double(h) / 2 - 0.5
                let (x0, y0) = (Int(sx.rounded(.down)), Int(sy.rounded(.down)))
                let (fx, fy) = (sx - Double(x0), sy - Double(y0))
                func at(_ px: Int, _ py: Int, _ c: Int) -> Double {
                    guard px >= 0, py >= 0, px < w, py < h else { return background[c] }
                    return Double(source[px, py][c])
                }
                for c in 0..<4 {
                    let v =
                        (at(x0, y0, c) * (1 - fx) + at(x0 + 1, y0, c) * fx) * (1 - fy)
                        + (at(x0, y0 + 1, c) * (1 - fx) + at(x0 + 1, y0 + 1, c) * fx) * fy
                    worst = max(worst, abs(Int(turned[x, y][c]) - Int(v.rounded())))
                }
            }
        }
        return worst
    }

    /// Any other angle: the bounding box, the background where the picture does not reach, the picture's colour
    /// in its middle, and every pixel within a level of bilinear sampling written out in doubles.
    @Test func rotateByAnyAngleSamplesBilinearlyOntoTheBackground() throws {
        let s = Fixtures.gradient(width: 40, height: 20)
        let turned = try Self.image(
            RotateOperation(context: context("rotate", ["angle": .double(30), "background": .string("#ff0000")])), of: s
        )
        let radians = 30.0 * .pi / 180
        let w = 40 * cos(radians) + 20 * sin(radians)
        let h = 40 * sin(radians) + 20 * cos(radians)
        #expect(turned.width == Int(w.rounded(.up)) && turned.height == Int(h.rounded(.up)))
        #expect(turned[0, 0] == SIMD4(255, 0, 0, 255), "a corner is background")
        let worst = Self.largestBilinearDifference(turned, from: s, degrees: 30, background: SIMD4(255, 0, 0, 255))
        #expect(worst <= 1, "largest difference \(worst)")
    }

    /// Noise in rows as wide as a photo's, turned slightly: every pixel within a level of the bilinear value, so
    /// the source point does not drift along a row (stepped in floats it did, by 3 levels at 1,000 pixels).
    @Test func rotateBySlightAngleDoesNotDriftAlongWideRows() throws {
        var s = Fixtures.noise(width: 1000, height: 40, seed: 8)
        for i in stride(from: 3, to: s.pixels.count, by: 4) { s.pixels[i] = 255 }
        let turned = try Self.image(RotateOperation(context: context("rotate", ["angle": .double(3)])), of: s)
        let worst = Self.largestBilinearDifference(turned, from: s, degrees: 3, background: SIMD4(0, 0, 0, 255))
        #expect(worst <= 1, "largest difference \(worst)")
    }

    /// Transparent corners, and no dark fringe: the edge pixels keep the picture's colour at partial alpha.
    @Test func rotateOntoTransparentKeepsTheEdgeColour() throws {
        let s = Image(width: 30, height: 30, filledWith: (200, 100, 50, 255))
        let turned = try Self.image(
            RotateOperation(context: context("rotate", ["angle": .double(45), "background": .string("transparent")])),
            of: s)
        #expect(turned[0, 0][3] == 0)
        for y in 0..<turned.height {
            for x in 0..<turned.width where turned[x, y][3] > 0 {
                #expect(Fixtures.close(turned[x, y], SIMD4(200, 100, 50, turned[x, y][3]), tolerance: 1))
            }
        }
    }

    /// The size check runs before anything is allocated: a resize of one pixel to 65535 × 65535 fails at once.
    @Test func aResultOverThePixelLimitFailsBeforeAllocating() {
        let result = Self.output(
            ResizeOperation(
                context: context("resize", ["width": .int(65535), "height": .int(65535), "fit": .string("fill")])),
            of: Image(width: 1, height: 1, filledWith: (1, 2, 3, 255)))
        guard case .failure(let failure) = result else {
            Issue.record("the resize should fail")
            return
        }
        #expect(
            failure.message
                == "the resize output would be 65535×65535 pixels, over the budget of 134217728 (raise it with "
                + "FLOWRUN_MAX_PIXELS if the machine has the memory)")
        #expect(throws: ImageOperationError.self) {
            let size = Rotation.boundingSize(width: 20000, height: 15000, degrees: 10)
            try ImageOperationError.checkSize(width: size.width, height: size.height, of: "the rotated image")
        }
        #expect(throws: ImageOperationError.self) {
            try ImageOperationError.checkSize(width: .max, height: 2, of: "an overflow")
        }
    }

    // MARK: crop

    @Test func cropABoxAtACorner() throws {
        let s = Self.source
        let cropped = try Self.image(
            CropOperation(
                context: context("crop", ["left": .int(5), "top": .int(3), "width": .int(10), "height": .int(7)])),
            of: s)
        Self.expectPixels(cropped, width: 10, height: 7) { x, y in s[x + 5, y + 3] }
    }

    @Test(arguments: [
        ("centre", 13, 8), ("northwest", 0, 0), ("southeast", 27, 16), ("north", 13, 0), ("west", 0, 8),
    ])
    func cropABoxAtAPosition(position: String, x0: Int, y0: Int) throws {
        let s = Self.source
        let cropped = try Self.image(
            CropOperation(
                context: context(
                    "crop", ["width": .int(10), "height": .int(7), "position": .string(position)])),
            of: s)
        Self.expectPixels(cropped, width: 10, height: 7) { x, y in s[x + x0, y + y0] }
    }

    @Test(arguments: [("16:9", 37, 21), ("1:1", 23, 23), ("0.5", 12, 23), ("3:1", 37, 12)])
    func cropToAnAspectRatioKeepsTheLargestRegion(aspect: String, width: Int, height: Int) throws {
        let s = Self.source
        let cropped = try Self.image(
            CropOperation(context: context("crop", ["aspect": .string(aspect), "position": .string("northeast")])),
            of: s)
        Self.expectPixels(cropped, width: width, height: height) { x, y in s[x + 37 - width, y] }
    }

    @Test func cropABoxOutsideTheImageFailsNamingBothSizes() {
        let result = Self.output(
            CropOperation(
                context: context("crop", ["left": .int(30), "top": .int(0), "width": .int(10), "height": .int(7)])),
            of: Self.source)
        guard case .failure(let failure) = result else {
            Issue.record("the crop should fail")
            return
        }
        #expect(failure.message == "crop box 10×7 at 30,0 does not fit the 37×23 image")
    }
}
