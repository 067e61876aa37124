import Dispatch
import FlowImaging
import FlowKit
import Foundation
import Synchronization

/// Measurements behind `bench/image/run.sh`: per-stage timings and end-to-end throughput of the benchmark job
/// (decode → sepia 0.8 → resize ×0.3 Lanczos → JPEG q85), literal and optimised.
///
/// Both call ``ImageMemory/keepLargeBuffersForReuse()`` first, as `flowrun` should at start-up.
///
/// In a target of its own, beside the library rather than in it; `package` so that the release-mode benchmark
/// test can call it without `@testable` (which release builds do not allow).
package enum ImagingBenchmark {
    /// The sepia intensity of the benchmark job.
    package static let intensity = 0.8
    /// The resize factor of the benchmark job.
    package static let scale = 0.3
    /// The JPEG quality of the benchmark job.
    package static let quality = 85

    /// Milliseconds per photo of each stage, on one thread.
    package static func stageTimings(files: [String]) throws -> [(stage: String, ms: Double)] {
        ImageMemory.keepLargeBuffersForReuse()
        var totals: [String: Double] = [:]
        let order = [
            "read", "decode full", "decode 1/2", "sepia full", "noir full", "resize x0.3 full",
            "resize x0.6 from 1/2 (+pending sepia)", "encode q85",
        ]
        func time<T>(_ stage: String, _ body: () throws -> T) rethrows -> T {
            let start = DispatchTime.now().uptimeNanoseconds
            let result = try body()
            totals[stage, default: 0] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            return result
        }
        let spec = ResizeSpec(size: .scale(scale))
        for file in files {
            let data = try time("read") { try Data(contentsOf: URL(fileURLWithPath: file)) }
            let full = try time("decode full") { try ImageDecoder.decode(data, source: file) }
            let half = try time("decode 1/2") { try ImageDecoder.decode(data, source: file) { _, _ in 0.5 } }
            var sepia = full
            time("sepia full") { ColorMatrix.sepia(intensity: intensity).apply(to: &sepia.pixels) }
            var noir = full
            time("noir full") { Noir.apply(to: &noir.pixels) }
            let small = time("resize x0.3 full") { sepia.resized(spec) }
            var pending = half
            pending.pendingColor = .sepia(intensity: intensity)
            _ = time("resize x0.6 from 1/2 (+pending sepia)") { pending.resized(spec) }
            _ = try time("encode q85") { try JPEGEncoder.encode(small, quality: quality) }
        }
        return order.map { ($0, (totals[$0] ?? 0) / Double(files.count)) }
    }

    /// What ``throughput(files:outputFolder:optimize:threads:)`` measured.
    package struct Throughput {
        /// Photos per second of wall time.
        package var photosPerSecond: Double
        /// Milliseconds of CPU time (user + system, every thread of the process) per photo: the steadier figure
        /// when other work shares the cores.
        package var cpuMillisecondsPerPhoto: Double
    }

    /// Runs the job on every file with the real operations, on `threads` threads.
    package static func throughput(files: [String], outputFolder: String, optimize: Bool, threads: Int = 2)
        throws -> Throughput
    {
        ImageMemory.keepLargeBuffersForReuse()
        let next = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let cpuStart = processCPUSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < files.count else { return }
                if let failure = runChain(
                    file: files[index], index: index, outputFolder: outputFolder,
                    optimize: optimize)
                {
                    failures.withLock { $0.append(failure) }
                }
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = processCPUSeconds() - cpuStart
        if let first = failures.withLock({ $0.first }) { throw ImageCodecError(first) }
        return Throughput(
            photosPerSecond: Double(files.count) / seconds, cpuMillisecondsPerPhoto: 1000 * cpu / Double(files.count))
    }

    /// User and system CPU time of the whole process so far.
    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The decoded outputs of the literal and the optimised job for one file, for comparing them.
    package static func literalAndOptimised(file: String) throws -> (literal: Image, optimised: Image) {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        func run(_ optimize: Bool) throws -> Image {
            let chain = makeChain(data: data, source: file, path: "/dev/null", optimize: optimize)
            for op in chain.dropLast() { op.start() }
            guard let image = (chain[chain.count - 2] as? ResizeOperation)?.providedImage else {
                throw ImageCodecError("the benchmark chain failed for \(file)")
            }
            return image
        }
        return (try run(false), try run(true))
    }

    private static func runChain(file: String, index: Int, outputFolder: String, optimize: Bool) -> String? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: file)) else { return "cannot read \(file)" }
        let name = FilePaths.stem(of: file)
        let chain = makeChain(data: data, source: file, path: outputFolder + "/" + name + ".jpg", optimize: optimize)
        for op in chain {
            op.start()
            if case .failure(let failure)? = op.outcome { return "\(op.context.nodeID): \(failure.message)" }
        }
        return nil
    }

    /// bytes → decode → sepia 0.8 → resize ×0.3 → write q85, wired as the runner would wire them.
    private static func makeChain(data: Data, source: String, path: String, optimize: Bool) -> [FlowOperation] {
        let writeParameters = ParameterValues(["path": .string(path), "quality": .int(quality)])
        let resizeParameters = ParameterValues(["scale": .double(scale)])
        let sepiaParameters = ParameterValues(["intensity": .double(intensity)])
        let write = NodeContext.Consumer(type: WriteTask(), parameters: writeParameters) { [] }
        let resize = NodeContext.Consumer(type: ResizeTask(), parameters: resizeParameters) { [write] }
        let sepia = NodeContext.Consumer(type: SepiaTask(), parameters: sepiaParameters) { [resize] }
        let bytes = BytesOperation(payload: DataPayload(data, source: source))
        let ops: [FlowOperation] = [
            bytes,
            DecodeOperation(
                context: NodeContext(
                    nodeID: "decode", typeName: "decode", consumers: [sepia],
                    optimize: optimize)),
            SepiaTask().makeOperation(
                NodeContext(
                    nodeID: "sepia", typeName: "sepia", parameters: sepiaParameters,
                    consumers: [resize], optimize: optimize)),
            ResizeOperation(
                context: NodeContext(
                    nodeID: "resize", typeName: "resize", parameters: resizeParameters,
                    consumers: [write], optimize: optimize)),
            WriteOperation(
                context: NodeContext(
                    nodeID: "write", typeName: "write", parameters: writeParameters,
                    optimize: optimize)),
        ]
        for (upstream, downstream) in zip(ops, ops.dropFirst()) { downstream.addDependency(upstream) }
        return ops
    }
}

/// A source node that provides bytes already in memory (the benchmark's stand-in for `fetch`).
package final class BytesOperation: FlowOperation, DataProvider, @unchecked Sendable {
    private let payload: DataPayload

    /// Creates a source of `payload`.
    package init(payload: DataPayload, nodeID: String = "bytes") {
        self.payload = payload
        super.init(context: NodeContext(nodeID: nodeID, typeName: "bytes"))
    }

    package override func execute() { finish(.success(payload)) }

    /// The payload, once finished.
    package var providedData: DataPayload? { output(as: DataPayload.self) }
}
