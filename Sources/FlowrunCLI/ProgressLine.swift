import Dispatch
import FlowBasics
import FlowKit
import Foundation

/// The live line on a terminal's stderr: per queue done/running/queued/failed, and the elapsed time.
final class ProgressLine: Sendable {
    private let timer = RepeatingTimer()
    /// The runners whose nodes the line counts, the first giving the elapsed time.
    private let runners = LockedBox<[Runner]>([])

    /// Counts `runner`'s nodes on the line from now on; the first runner starts drawing it. A session starts
    /// several for a list made at run time (``SessionOptions/onRunnerStart``), each counting its own nodes.
    func add(_ runner: Runner) {
        let first = runners.withLock { runners in
            runners.append(runner)
            return runners.count == 1
        }
        if first { start() }
    }

    private func start() {
        timer.start(every: .milliseconds(100)) { [runners] in
            let all = runners.withLock { $0 }
            guard let first = all.first else { return }
            var progress: [String: [NodeStatus: Int]] = [:]
            for runner in all {
                progress.merge(runner.progress()) { $0.merging($1, uniquingKeysWith: +) }
            }
            FileHandle.standardError.write(
                Data(("\r\u{1B}[2K" + Terminal.visible(Self.line(progress, elapsed: first.elapsed))).utf8))
        }
    }

    func stop() {
        guard timer.stop() else { return }
        // Wait for a tick in flight to finish writing before the line is cleared.
        DispatchQueue.global(qos: .utility).sync {}
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    static func line(_ progress: [String: [NodeStatus: Int]], elapsed: Duration) -> String {
        let parts = progress.keys.sorted().compactMap { queue -> String? in
            let counts = progress[queue] ?? [:]
            let total = counts.values.reduce(0, +)
            guard total > 0 else { return nil }
            let done = NodeStatus.allCases.filter(\.isFinal).reduce(0) { $0 + (counts[$1] ?? 0) }
            var text =
                "\(queue) \(done)/\(total) done, \(counts[.running] ?? 0) running, \((counts[.queued] ?? 0) + (counts[.retrying] ?? 0)) queued"
            let failed = counts[.failed] ?? 0
            if failed > 0 { text += ", \(failed) failed" }
            let cached = counts[.cached] ?? 0
            if cached > 0 { text += ", \(cached) cached" }
            let restored = counts[.restored] ?? 0
            if restored > 0 { text += ", \(restored) restored" }
            return text
        }
        return parts.joined(separator: " │ ") + " │ " + String(format: "%.1fs", elapsed.seconds)
    }
}
