import Foundation
import TestSupport
import Testing

@testable import FlowImaging

/// flowrun's develop of a generated DNG (``DNGFixture``) against rawpy's — Python's libraw binding, which bundles its
/// own libraw — with the same settings: AHD, camera white balance, sRGB primaries and tone curve (`gamma=(2.4,
/// 12.92)`), 8 bits, `no_auto_bright`; full and half size. Skipped, saying why, where rawpy cannot be imported
/// (`python3 -m pip install rawpy`; `.ci/run` installs it).
@Suite(.enabled(if: Rawpy.unavailable == nil, Comment(rawValue: Rawpy.unavailable ?? "")))
struct RawpyComparisonTests {
    /// Mean ≤ 2 levels and largest ≤ 8 (libraw 0.20.2 here, rawpy's own build of a newer libraw).
    /// Measured: identical (mean 0, largest 0) at full and half size.
    @Test(.timeLimit(.minutes(20)), arguments: [false, true])
    func flowrunDevelopsADNGAsRawpyDoes(halfSize: Bool) throws {
        let folder = try TemporaryFolder()
        let fixture = DNGFixture(width: 96, height: 64, orientation: 6)
        let dng = try folder.write("t.dng", Data(fixture.bytes))
        let (width, height, reference) = try Rawpy.develop(dng, halfSize: halfSize, in: folder)
        let image = try ImageDecoder.decode(
            Data(fixture.bytes), source: "t.dng", keptFraction: { _, _ in halfSize ? 0.5 : nil })
        try #require(image.width == width && image.height == height, "\(image.width)×\(image.height)")
        var total = 0
        var largest = 0
        for index in 0..<width * height {
            for channel in 0..<3 {
                let difference = abs(Int(image.pixels[index * 4 + channel]) - Int(reference[index * 3 + channel]))
                total += difference
                largest = max(largest, difference)
            }
        }
        let mean = Double(total) / Double(width * height * 3)
        #expect(mean <= 2 && largest <= 8, "mean difference \(mean), largest \(largest) levels")
    }
}

/// rawpy through python3.
enum Rawpy {
    /// Why rawpy cannot be used, or `nil` when it can.
    static let unavailable: String? = {
        let result = python(["-c", "import rawpy"])
        return result.status == 0 ? nil : "rawpy cannot be imported (python3 -m pip install rawpy): \(result.output)"
    }()

    /// Runs python3 with `arguments`: its exit status and what it printed.
    static func python(_ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (-1, "\(error)") }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// rawpy's develop of `dng` as RGB bytes, with its width and height.
    static func develop(_ dng: String, halfSize: Bool, in folder: TemporaryFolder) throws -> (Int, Int, [UInt8]) {
        let out = folder.path("rawpy.rgb")
        let script = """
            import sys, rawpy
            with rawpy.imread(sys.argv[1]) as raw:
                rgb = raw.postprocess(use_camera_wb=True, output_color=rawpy.ColorSpace.sRGB, output_bps=8,
                                      no_auto_bright=True, gamma=(2.4, 12.92), half_size=sys.argv[3] == "half",
                                      demosaic_algorithm=rawpy.DemosaicAlgorithm.AHD)
            open(sys.argv[2], "wb").write(rgb.tobytes())
            print(rgb.shape[1], rgb.shape[0])
            """
        let result = python(["-c", script, dng, out, halfSize ? "half" : "full"])
        try #require(result.status == 0, "rawpy failed: \(result.output)")
        let size = result.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(size.count == 2, "rawpy printed \(result.output)")
        return (size[0], size[1], [UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
    }
}
