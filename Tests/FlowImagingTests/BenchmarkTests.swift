import FlowImaging
import FlowImagingBench
import Foundation
import Testing

/// The image benchmark, run by `bench/image/run.sh` as `swift test -c release --filter Bench` with
/// `FLOWRUN_BENCH=1`; skipped otherwise. `FLOWRUN_BENCH_CORPUS` names the corpus folder,
/// `FLOWRUN_BENCH_OUT` the output folder, `FLOWRUN_BENCH_MODE` is `stages`, `literal`, `optimised` or `quality`.
@Suite struct BenchmarkTests {
    static let enabled = ProcessInfo.processInfo.environment["FLOWRUN_BENCH"] == "1"

    @Test(.enabled(if: BenchmarkTests.enabled)) func benchImagePipeline() throws {
        let env = ProcessInfo.processInfo.environment
        let corpus = try #require(env["FLOWRUN_BENCH_CORPUS"])
        let out = env["FLOWRUN_BENCH_OUT"] ?? NSTemporaryDirectory() + "flowrun-bench-out"
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus)
            .filter { $0.hasSuffix(".jpg") }.sorted().map { corpus + "/" + $0 }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        switch env["FLOWRUN_BENCH_MODE"] ?? "stages" {
        case "stages":
            for (stage, ms) in try ImagingBenchmark.stageTimings(files: Array(files.prefix(20))) {
                print("BENCH stage \(stage): \(String(format: "%.2f", ms)) ms/photo")
            }
        case "literal", "optimised":
            let optimise = env["FLOWRUN_BENCH_MODE"] == "optimised"
            let measured = try ImagingBenchmark.throughput(files: files, outputFolder: out, optimize: optimise)
            let rate = String(format: "%.1f", measured.photosPerSecond)
            let cpu = String(format: "%.1f", measured.cpuMillisecondsPerPhoto)
            print("BENCH flowrun \(optimise ? "optimised" : "literal"): \(rate) photos/s \(cpu) ms-cpu/photo")
        default:
            var worst = 0
            var total = 0.0
            var count = 0
            var over2 = 0
            var lowestPSNR = Double.infinity
            for file in files.prefix(20) {
                let (literal, optimised) = try ImagingBenchmark.literalAndOptimised(file: file)
                #expect(literal.width == optimised.width && literal.height == optimised.height)
                var squares = 0.0
                // Colour channels only: alpha is 255 in both, and counting it would flatter the PSNR.
                for (index, (a, b)) in zip(literal.pixels, optimised.pixels).enumerated() where index % 4 != 3 {
                    let d = abs(Int(a) - Int(b))
                    worst = max(worst, d)
                    total += Double(d)
                    squares += Double(d * d)
                    count += 1
                    if d > 2 { over2 += 1 }
                }
                let psnr = 10 * log10(255 * 255 / max(squares / Double(literal.pixels.count / 4 * 3), 1e-12))
                lowestPSNR = min(lowestPSNR, psnr)
                print("BENCH quality \((file as NSString).lastPathComponent): PSNR \(String(format: "%.1f", psnr)) dB")
            }
            print(
                "BENCH quality optimised vs literal: mean |diff| \(String(format: "%.3f", total / Double(count))), "
                    + "max \(worst), share > 2 levels \(String(format: "%.4f", Double(over2) / Double(count) * 100)) %, "
                    + "lowest PSNR \(String(format: "%.1f", lowestPSNR)) dB")
        }
    }
}
