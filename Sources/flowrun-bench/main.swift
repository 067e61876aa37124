// flowrun-bench: engine overhead against the raw OperationQueue floor, measured in one process.
//
//   swift run -c release flowrun-bench [--nodes 20000] [--rounds 5] [--shape chain|wide|lattice|forEach] [--profile]
//   swift run -c release flowrun-bench --million [--rounds 3]
//
// --million runs 1,000,000 no-op nodes (200,000 items × 5 tasks), alternating runs without and with the report
// streamed to a file, and prints the times, the report's share and the peak RSS of the process.
//
// --profile runs only flowrun (no floor), for `perf record` or `valgrind --tool=callgrind`;
// --profile-raw-chain runs only the raw chain below, to profile what Foundation alone costs per link.
//
// For each shape (chain, wide fan-out/fan-in, lattice, forEach chain of 3) it times Runner.run() on a planned
// workflow of N no-op nodes, and between every two shapes times N independent raw Operations through one
// OperationQueue (the floor). The machine drifts, so each shape's ratio is against the floor runs next to it.
// A chain is serial by nature, so it is also compared with a raw chain whose operations enqueue their successor.
import FlowKit
import Foundation

struct Arguments {
    var nodes = 20_000
    var rounds = 5
    var shapes = Shape.standard
    var profile = false
    var profileRawChain = false
    var million = false

    init() {
        var iterator = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--nodes": nodes = iterator.next().flatMap(Int.init) ?? nodes
            case "--rounds": rounds = iterator.next().flatMap(Int.init) ?? rounds
            case "--shape": shapes = iterator.next().flatMap(Shape.init(rawValue:)).map { [$0] } ?? shapes
            case "--profile": profile = true
            case "--profile-raw-chain": profileRawChain = true
            case "--million": million = true
            default:
                FileHandle.standardError.write(
                    Data(
                        "usage: flowrun-bench [--nodes N] [--rounds R] [--shape chain|wide|lattice|forEach] [--profile] [--profile-raw-chain] [--million]\n"
                            .utf8))
                exit(2)
            }
        }
    }
}

final class EmptyOperation: Operation, @unchecked Sendable {
    override func main() {}
}

func floor(_ count: Int) -> Double {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = ProcessInfo.processInfo.activeProcessorCount
    let operations = (0..<count).map { _ in EmptyOperation() }
    let start = ContinuousClock.now
    queue.addOperations(operations, waitUntilFinished: true)
    return (ContinuousClock.now - start).seconds
}

/// A chain of raw operations, each enqueueing the next when it runs: the fastest a strictly serial graph can
/// go through an OperationQueue (the brief's "enqueued only when ready" chain).
final class ChainLink: Operation, @unchecked Sendable {
    let queue: OperationQueue
    let remaining: Int
    let done: DispatchSemaphore

    init(queue: OperationQueue, remaining: Int, done: DispatchSemaphore) {
        self.queue = queue
        self.remaining = remaining
        self.done = done
    }

    override func main() {
        if remaining == 0 {
            done.signal()
        } else {
            queue.addOperation(ChainLink(queue: queue, remaining: remaining - 1, done: done))
        }
    }
}

func chainFloor(_ count: Int) -> Double {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = ProcessInfo.processInfo.activeProcessorCount
    let done = DispatchSemaphore(value: 0)
    let start = ContinuousClock.now
    queue.addOperation(ChainLink(queue: queue, remaining: count - 1, done: done))
    done.wait()
    return (ContinuousClock.now - start).seconds
}

enum Shape: String, CaseIterable {
    case chain, wide, lattice, forEach
    /// 5 tasks over one forEach list: the million-node shape (not in the default set).
    case forEach5

    static let standard: [Shape] = [.chain, .wide, .lattice, .forEach]

    func yaml(nodes: Int) -> String {
        var text = "version: 1\ntasks:\n"
        switch self {
        case .chain:
            for index in 0..<nodes {
                text +=
                    index == 0 ? "  t0: { type: noop }\n" : "  t\(index): { type: noop, dependsOn: t\(index - 1) }\n"
            }
        case .wide:
            text += "  source: { type: noop }\n"
            for index in 0..<(nodes - 2) { text += "  t\(index): { type: noop, dependsOn: source }\n" }
            text +=
                "  sink:\n    type: noop\n    dependsOn: [" + (0..<(nodes - 2)).map { "t\($0)" }.joined(separator: ", ")
                + "]\n"
        case .lattice:
            let width = 200
            for layer in 0..<(nodes / width) {
                for column in 0..<width {
                    let dependencies =
                        layer == 0
                        ? "" : ", dependsOn: [n\(layer - 1)_\(column), n\(layer - 1)_\((column + 1) % width)]"
                    text += "  n\(layer)_\(column): { type: noop\(dependencies) }\n"
                }
            }
        case .forEach:
            text += "params:\n  items: [" + (0..<(nodes / 3)).map(String.init).joined(separator: ", ") + "]\n"
            text = text.replacingOccurrences(of: "tasks:\n", with: "") + "tasks:\n"
            text +=
                "  a: { type: noop, forEach: \"${params.items}\" }\n  b: { type: noop, dependsOn: a }\n  c: { type: noop, dependsOn: b }\n"
        case .forEach5:
            text += "params:\n  items: [" + (0..<(nodes / 5)).map(String.init).joined(separator: ", ") + "]\n"
            text = text.replacingOccurrences(of: "tasks:\n", with: "") + "tasks:\n"
            text += "  a: { type: noop, forEach: \"${params.items}\" }\n"
            for (task, upstream) in zip(["b", "c", "d", "e"], ["a", "b", "c", "d"]) {
                text += "  \(task): { type: noop, dependsOn: \(upstream) }\n"
            }
        }
        return text
    }

    func plan(nodes: Int) -> Plan {
        let result = WorkflowLoader(registry: .builtIn).plan(
            bytes: Array(yaml(nodes: nodes).utf8), path: "\(rawValue).yaml")
        guard let plan = result.plan else {
            fatalError(DiagnosticRenderer(sources: result.sources).render(result.diagnostics))
        }
        return plan
    }
}

func run(_ plan: Plan) -> Double {
    let start = ContinuousClock.now
    let runner = Runner(plan: plan)
    if ProcessInfo.processInfo.environment["BENCH_SPLIT"] != nil {
        print("  init \((ContinuousClock.now - start).seconds)")
    }
    let report = runner.run()
    let elapsed = (ContinuousClock.now - start).seconds
    precondition(report.exitCode == 0, "a no-op node failed")
    return elapsed
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// The CPU time the process has used so far, in seconds (all threads): steadier than wall time on a busy machine.
func processCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The CPU time the calling thread has used so far, in seconds: what writing the report costs, without the run.
func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The process's peak resident set so far, in MB.
func peakRSS() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

let arguments = Arguments()
if arguments.million {
    let plan = Shape.forEach5.plan(nodes: 1_000_000)
    print("1,000,000 no-op nodes (200,000 items × 5 tasks); planned, peak RSS \(String(format: "%.0f", peakRSS())) MB")
    let reportPath = NSTemporaryDirectory() + "flowrun-bench-\(getpid()).json"
    defer { unlink(reportPath) }
    var plain: [Double] = []
    var reported: [Double] = []
    var writes: [Double] = []
    var writesCPU: [Double] = []
    var reportBytes = 0
    var plainCPU: [Double] = []
    var reportedCPU: [Double] = []
    for _ in 0..<arguments.rounds {
        var cpu = processCPUSeconds()
        plain.append(run(plan))
        plainCPU.append(processCPUSeconds() - cpu)
        cpu = processCPUSeconds()
        let start = ContinuousClock.now
        let report = Runner(plan: plan).run()
        let written = ContinuousClock.now
        let writingCPU = threadCPUSeconds()
        try report.write(toPath: reportPath)
        writesCPU.append(threadCPUSeconds() - writingCPU)
        reported.append((ContinuousClock.now - start).seconds)
        reportedCPU.append(processCPUSeconds() - cpu)
        writes.append((ContinuousClock.now - written).seconds)
        reportBytes = (try? FileManager.default.attributesOfItem(atPath: reportPath)[.size] as? Int) ?? 0
    }
    print(
        String(
            format:
                "run %.2fs, run + streamed report %.2fs (of which writing %.2fs; medians of %d, alternated): the report adds %.0f%%",
            median(plain), median(reported), median(writes), arguments.rounds,
            (median(reported) / median(plain) - 1) * 100))
    print(
        String(
            format: "CPU time: run %.2fs, run + streamed report %.2fs: the report adds %.0f%%", median(plainCPU),
            median(reportedCPU), (median(reportedCPU) / median(plainCPU) - 1) * 100))
    print(
        String(
            format: "writing the report (%.0f MB): %.3fs of CPU on the writing thread (median; least %.3fs)",
            Double(reportBytes) / 1e6, median(writesCPU), writesCPU.min() ?? 0))
    print("peak RSS of the process: \(String(format: "%.0f", peakRSS())) MB")
    exit(0)
}
if arguments.profileRawChain {
    // Only the raw chain: what Foundation alone costs per link, for comparing profiles with `--profile`.
    let times = (0..<arguments.rounds).map { _ in chainFloor(arguments.nodes) }
    print("raw chain", String(format: "%.3fs median of %d", median(times), arguments.rounds))
    exit(0)
}
if arguments.profile {
    // Only flowrun, no floor and no doubled graph: for `perf record` of the engine's own cost.
    for shape in arguments.shapes {
        let plan = shape.plan(nodes: arguments.nodes)
        let times = (0..<arguments.rounds).map { _ in run(plan) }
        print(shape.rawValue, String(format: "%.3fs median of %d", median(times), arguments.rounds))
    }
    exit(0)
}
print(
    "engine overhead, \(arguments.nodes) no-op nodes, \(arguments.rounds) rounds, \(ProcessInfo.processInfo.activeProcessorCount) cores"
)
print("floor = \(arguments.nodes) independent raw Operations through one OperationQueue, timed next to each shape\n")
print("shape      nodes   flowrun (median)  floor (median)  ratio   2×nodes  scaling")
for shape in arguments.shapes {
    let plan = shape.plan(nodes: arguments.nodes)
    let doubled = shape.plan(nodes: arguments.nodes * 2)
    var ratios: [Double] = []
    var times: [Double] = []
    var floors: [Double] = []
    var doubledTimes: [Double] = []
    _ = run(plan)  // warm up
    for _ in 0..<arguments.rounds {
        let before = floor(plan.nodes.count)
        let time = run(plan)
        let after = floor(plan.nodes.count)
        times.append(time)
        floors.append((before + after) / 2)
        ratios.append(time / ((before + after) / 2))
        doubledTimes.append(run(doubled))
    }
    let line = [
        shape.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0),
        String(plan.nodes.count).padding(toLength: 7, withPad: " ", startingAt: 0),
        String(format: "%8.3fs         ", median(times)),
        String(format: "%8.3fs       ", median(floors)),
        String(format: "%5.2f×  ", median(ratios)),
        String(format: "%6.3fs ", median(doubledTimes)),
        String(format: "%5.2f×", median(doubledTimes) / median(times)),
    ]
    print(line.joined(separator: " "))
    if shape == .chain {
        // A chain is serial: compare it with the serial floor too.
        var serialRatios: [Double] = []
        for _ in 0..<arguments.rounds {
            let before = chainFloor(plan.nodes.count)
            let time = run(plan)
            let after = chainFloor(plan.nodes.count)
            serialRatios.append(time / ((before + after) / 2))
        }
        print(
            String(
                format: "  chain vs a raw chain of %d operations, each enqueued when ready: %.2f×",
                plan.nodes.count, median(serialRatios)))
    }
}
