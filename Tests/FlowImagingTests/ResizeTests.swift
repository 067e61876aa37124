import FlowImaging
import FlowKit
import Foundation
import Testing

/// Resize geometry and the resampling kernels.
@Suite struct ResizeTests {
    struct SizeCase: Sendable, CustomTestStringConvertible {
        var spec: ResizeSpec.Size
        var expected: (Int, Int)
        var testDescription: String { "\(spec) → \(expected)" }
    }

    static let sizeCases: [SizeCase] = [
        SizeCase(spec: .scale(0.5), expected: (200, 150)),
        SizeCase(spec: .scale(0.3), expected: (120, 90)),
        SizeCase(spec: .scale(2), expected: (800, 600)),
        SizeCase(spec: .width(100), expected: (100, 75)),
        SizeCase(spec: .height(60), expected: (80, 60)),
        SizeCase(spec: .box(width: 100, height: 100, fit: .contain), expected: (100, 75)),
        SizeCase(spec: .box(width: 1000, height: 100, fit: .contain), expected: (133, 100)),
        SizeCase(spec: .box(width: 100, height: 100, fit: .cover), expected: (100, 100)),
        SizeCase(spec: .box(width: 50, height: 200, fit: .cover), expected: (50, 200)),
        SizeCase(spec: .box(width: 100, height: 50, fit: .fill), expected: (100, 50)),
        SizeCase(spec: .scale(0.001), expected: (1, 1)),
    ]

    @Test(arguments: sizeCases)
    func outputSizeForEveryMode(_ c: SizeCase) {
        let spec = ResizeSpec(size: c.spec)
        let size = spec.outputSize(width: 400, height: 300)
        #expect(size.width == c.expected.0 && size.height == c.expected.1)
        let image = Fixtures.gradient(width: 40, height: 30)
        let small = ResizeSpec(size: c.spec, filter: .bilinear)
        let resized = image.resized(small)
        let want = small.outputSize(width: 40, height: 30)
        #expect(resized.width == want.width && resized.height == want.height)
        #expect(resized.pixels.count == want.width * want.height * 4)
    }

    @Test func specIsReadFromParameters() {
        func spec(_ values: [String: Value]) -> ResizeSpec? {
            ResizeSpec(ResizeTask.Parameters(ParameterValues(values)))
        }
        let box = spec(["width": .int(10), "height": .int(20), "fit": .string("cover"), "filter": .string("nearest")])
        #expect(box == ResizeSpec(size: .box(width: 10, height: 20, fit: .cover), filter: .nearest))
        #expect(spec(["scale": .double(0.3)]) == ResizeSpec(size: .scale(0.3), filter: .lanczos))
        #expect(spec(["height": .int(7)])?.size == .height(7))
        #expect(spec(["filter": .string("nearest")]) == nil)
    }

    @Test(arguments: [ResampleFilter.lanczos, .bilinear, .nearest], [(11, 7), (80, 50), (37, 23), (1, 1)])
    func constantImageStaysConstant(filter: ResampleFilter, size: (Int, Int)) {
        let image = Image(width: 37, height: 23, filledWith: (10, 200, 50, 128))
        let out = image.resized(ResizeSpec(size: .box(width: size.0, height: size.1, fit: .fill), filter: filter))
        #expect(out.width == size.0 && out.height == size.1)
        for y in 0..<out.height {
            for x in 0..<out.width { #expect(out[x, y] == SIMD4(10, 200, 50, 128)) }
        }
    }

    /// A one-row image with a single bright pixel at x = 8, halved.
    static func impulse() -> Image {
        var pixels = [UInt8](repeating: 0, count: 16 * 4)
        for c in 0..<4 { pixels[8 * 4 + c] = 255 }
        return Image(width: 16, height: 1, pixels: pixels)
    }

    @Test func bilinearImpulseMatchesHandComputedWeights() {
        // scale 2, support 2: out[3] reads x = 5…8 with weights 1/8, 3/8, 3/8, 1/8; out[4] reads x = 7…10. The
        // weights show in alpha; the colour, premultiplied by alpha, stays the impulse's white where there is any.
        let out = Self.impulse().resized(ResizeSpec(size: .box(width: 8, height: 1, fit: .fill), filter: .bilinear))
        #expect((0..<8).map { Int(out[$0, 0][3]) } == [0, 0, 0, 32, 96, 0, 0, 0])
        #expect((0..<8).map { Int(out[$0, 0][0]) } == [0, 0, 0, 255, 255, 0, 0, 0])
    }

    @Test func lanczosImpulseMatchesHandComputedWeights() {
        func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(.pi * x) / (.pi * x) }
        func lanczos(_ x: Double) -> Double { abs(x) < 3 ? sinc(x) * sinc(x / 3) : 0 }
        let out = Self.impulse().resized(ResizeSpec(size: .box(width: 8, height: 1, fit: .fill), filter: .lanczos))
        for o in 0..<8 {
            // centre (o + ½)·2, support 3·2 = 6, taps at input pixel centres x + ½, distances divided by 2
            let center = (Double(o) + 0.5) * 2
            let first = max(Int(center - 6 + 0.5), 0)
            let last = min(Int(center + 6 + 0.5), 16)
            let weights = (first..<last).map { lanczos((Double($0) + 0.5 - center) / 2) }
            let total = weights.reduce(0, +)
            let value = 255 * ((8 >= first && 8 < last) ? weights[8 - first] / total : 0)
            let expected = min(max(Int(value.rounded()), 0), 255)
            #expect(abs(Int(out[o, 0][3]) - expected) <= 1, "output pixel \(o)'s alpha")
        }
    }

    @Test func lanczosStepHasRingingButKeepsLevels() {
        // A vertical step edge: left half 50, right half 200, halved in width.
        var pixels = [UInt8](repeating: 255, count: 32 * 4 * 4)
        for y in 0..<4 { for x in 0..<32 { for c in 0..<3 { pixels[(y * 32 + x) * 4 + c] = x < 16 ? 50 : 200 } } }
        let out = Image(width: 32, height: 4, pixels: pixels)
            .resized(ResizeSpec(size: .box(width: 16, height: 4, fit: .fill)))
        #expect(out[0, 0][0] == 50 && out[15, 3][0] == 200)
        #expect(out[6, 1][0] < 50, "Lanczos undershoots before the edge")
        #expect(out[8, 1][0] > 120 && out[7, 1][0] < 130, "the edge stays between pixels 7 and 8")
    }

    /// A direct double-precision resampling (Pillow's conventions, premultiplied by alpha), separable, rounded once.
    static func reference(_ image: Image, width: Int, height: Int, filter: String) -> [Int] {
        func kernel(_ x: Double) -> Double {
            func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(.pi * x) / (.pi * x) }
            switch filter {
            case "lanczos": return abs(x) < 3 ? sinc(x) * sinc(x / 3) : 0
            default: return max(0, 1 - abs(x))
            }
        }
        func weights(_ inCount: Int, _ outCount: Int) -> [[(Int, Double)]] {
            let scale = Double(inCount) / Double(outCount)
            let fs = max(1, scale)
            let support = (filter == "lanczos" ? 3.0 : 1.0) * fs
            return (0..<outCount).map { o in
                let c = (Double(o) + 0.5) * scale
                let lo = max(Int(c - support + 0.5), 0)
                let hi = min(Int(c + support + 0.5), inCount)
                let w = (lo..<hi).map { kernel((Double($0) - c + 0.5) / fs) }
                let total = w.reduce(0, +)
                return zip(lo..<hi, w).map { ($0, $1 / total) }
            }
        }
        let wx = weights(image.width, width)
        let wy = weights(image.height, height)
        var out = [Int]()
        for y in 0..<height {
            for x in 0..<width {
                var sums = [Double](repeating: 0, count: 4)
                for (sy, a) in wy[y] {
                    for (sx, b) in wx[x] {
                        let pixel = image[sx, sy]
                        let alpha = Double(pixel[3])
                        for c in 0..<3 { sums[c] += a * b * Double(pixel[c]) * alpha / 255 }
                        sums[3] += a * b * alpha
                    }
                }
                let alpha = min(sums[3], 255)
                for c in 0..<3 {
                    let v = alpha >= 0.5 ? sums[c] * 255 / alpha : 0
                    out.append(min(max(Int(v.rounded()), 0), 255))
                }
                out.append(min(max(Int(sums[3].rounded()), 0), 255))
            }
        }
        return out
    }

    @Test(arguments: ["lanczos", "bilinear"], [(7, 5), (13, 9), (20, 3), (45, 31), (60, 50)])
    func resamplingMatchesADirectReference(filter: String, size: (Int, Int)) throws {
        let image = Fixtures.noise(width: 29, height: 23, seed: 5)
        let spec = ResizeSpec(
            size: .box(width: size.0, height: size.1, fit: .fill),
            filter: try #require(ResampleFilter(rawValue: filter)))
        let out = image.resized(spec)
        let expected = Self.reference(image, width: size.0, height: size.1, filter: filter)
        let worst = zip(out.pixels, expected).map { abs(Int($0) - $1) }.max() ?? 0
        #expect(worst <= 1)
    }

    @Test func nearestPicksPixels() {
        let image = Fixtures.noise(width: 8, height: 8)
        let out = image.resized(ResizeSpec(size: .scale(0.5), filter: .nearest))
        for y in 0..<4 { for x in 0..<4 { #expect(out[x, y] == image[2 * x + 1, 2 * y + 1]) } }
    }

    @Test func coverCropsTheCentre() {
        let image = Fixtures.quadrants(width: 64, height: 32)
        let out = image.resized(ResizeSpec(size: .box(width: 16, height: 16, fit: .cover)))
        #expect(out.width == 16 && out.height == 16)
        // The centre crop of the scaled 32×16 image: both left quadrants' right halves meet the right ones.
        #expect(Fixtures.close(out[2, 2], Fixtures.quadrantColors[0], tolerance: 8))
        #expect(Fixtures.close(out[13, 13], Fixtures.quadrantColors[3], tolerance: 8))
    }

    @Test func resizeUsesTheOriginalSize() {
        // An image decoded at 1/2 scale that stands for a 400×300 original: scale 0.3 means 120×90.
        let half = Image(
            width: 200, height: 150, pixels: Fixtures.gradient(width: 200, height: 150).pixels,
            originalSize: (400, 300))
        let out = half.resized(ResizeSpec(size: .scale(0.3)))
        #expect(out.width == 120 && out.height == 90)
        #expect(out.originalWidth == 120 && out.originalHeight == 90)
    }
}
