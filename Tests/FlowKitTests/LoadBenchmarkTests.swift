import Foundation
import Testing

@testable import FlowKit

/// Load + validate + plan time for large workflows, in-process. Skipped unless `FLOWRUN_BENCH=1`:
/// `FLOWRUN_BENCH=1 swift test -c release --filter LoadBenchmark`. Targets: 10k tasks ≤ 0.3 s, 20k ≤ 2.2× 10k.
/// `bench/load/run.sh` measures the same through the `flowrun validate` binary.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["FLOWRUN_BENCH"] == "1"), .serialized)
struct LoadBenchmark {
    /// The shape of `bench/load/generate.py`: groups of ten — a chain of seven noops, a sleep fanning out of
    /// the chain, and a fan-in depending on the group and on the previous group's fan-in.
    static func workflow(tasks count: Int) -> String {
        var out = "version: 1\nname: bench-\(count)\nqueues:\n  io: { maxConcurrent: 4 }\ntasks:\n"
        for index in 0..<count {
            let (group, slot) = index.quotientAndRemainder(dividingBy: 10)
            var deps: [Int] = []
            switch slot {
            case 0: deps = group > 0 ? [index - 1] : []
            case 1..<8: deps = [index - 1]
            case 8: deps = [group * 10 + 3, group * 10 + 5]
            default: deps = Array(group * 10..<index) + (group > 0 ? [index - 10] : [])
            }
            out += "  t\(group)_\(slot):\n"
            out += slot == 8 ? "    type: sleep\n    duration: 1ms\n    queue: io\n" : "    type: noop\n"
            if !deps.isEmpty {
                out += "    dependsOn: [" + deps.map { "t\($0 / 10)_\($0 % 10)" }.joined(separator: ", ") + "]\n"
            }
        }
        return out
    }

    /// The median of five load+validate+plan runs, after one warm-up.
    static func median(tasks count: Int) throws -> Duration {
        let bytes = Array(workflow(tasks: count).utf8)
        let loader = WorkflowLoader(registry: .builtIn, environment: [:])
        let clock = ContinuousClock()
        var times: [Duration] = []
        for run in 0..<6 {
            var result: WorkflowLoader.LoadResult?
            let elapsed = clock.measure { result = loader.plan(bytes: bytes, path: "bench.yaml") }
            let plan = try #require(result?.plan, "\(result.map { DiagnosticRenderer().render($0.diagnostics) } ?? "")")
            #expect(plan.nodes.count == count)
            if run > 0 { times.append(elapsed) }
        }
        return times.sorted()[times.count / 2]
    }

    @Test func loadValidatePlan() throws {
        let small = try Self.median(tasks: 10_000)
        let large = try Self.median(tasks: 20_000)
        let ratio = large / small
        print("load+validate+plan: 10k tasks \(small), 20k tasks \(large), ratio \(String(format: "%.2f", ratio))")
        #expect(small <= .milliseconds(300))
        #expect(ratio <= 2.2)
    }

    @Test func generatedWorkflowIsValid() throws {
        let result = WorkflowLoader(registry: .builtIn, environment: [:]).plan(bytes: Array(Self.workflow(tasks: 25).utf8), path: "b.yaml")
        let plan = try #require(result.plan)
        #expect(plan.nodes.count == 25)
        #expect(result.diagnostics.all.isEmpty)
    }
}
