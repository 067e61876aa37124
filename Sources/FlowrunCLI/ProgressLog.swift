import Dispatch
import FlowBasics
import FlowKit
import Foundation
import OrderedCollections

/// A run's progress as a log wants it (stderr is a file or a CI's pipe, or `--progress plain`): a plain line at
/// a steady interval with the done, running and failed nodes of every task, and one when a task ends, each
/// with the elapsed time — never a carriage return or an escape code.
final class ProgressLog: Sendable {
    /// The time between two lines of every task.
    let interval: Duration
    private let timer = RepeatingTimer()
    private let state = LockedBox(State())

    private struct State {
        /// The runners whose nodes the lines count, the first giving the elapsed time.
        var runners: [Runner] = []
        /// When the last line of every task was written, as elapsed time.
        var lastLine = Duration.zero
        /// The tasks whose end has been written.
        var ended: Set<String> = []
        /// Whether ``stop()`` wrote the last lines: a tick that comes after writes nothing.
        var stopped = false
    }

    /// How often the counts are read, so that a task's end is written soon after it comes.
    static let tick = Duration.milliseconds(250)

    init(interval: Duration) { self.interval = interval }

    /// Counts `runner`'s nodes from now on; the first runner starts the clock (see ``ProgressLine/add(_:)``).
    func add(_ runner: Runner) {
        let first = state.withLock { state in
            state.runners.append(runner)
            return state.runners.count == 1
        }
        if first { start() }
    }

    private func start() {
        timer.start(every: Self.tick) { [self] in write(final: false) }
    }

    /// Stops the lines, writing the end of every task that ended since the last tick.
    func stop() {
        guard timer.stop() else { return }
        write(final: true)
    }

    /// Writes the lines due now: the end of each task that ended, in the workflow's order, and every task's
    /// counts once the interval has passed (not on the last call: the summary follows). Written under the lock,
    /// so a tick in flight when the run ends writes before the last lines or not at all.
    private func write(final: Bool) {
        state.withLock { state in
            guard !state.stopped, let first = state.runners.first else { return }
            state.stopped = final
            var progress = OrderedDictionary<String, [NodeStatus: Int]>()
            for runner in state.runners {
                progress.merge(runner.progressByTask()) { $0.merging($1, uniquingKeysWith: +) }
            }
            let elapsed = first.elapsed
            var out = ""
            for (task, counts) in progress where !state.ended.contains(task) {
                let total = counts.values.reduce(0, +)
                guard total > 0, Self.done(counts) == total else { continue }
                state.ended.insert(task)
                out += Self.ended(task, counts, elapsed: elapsed) + "\n"
            }
            if !final, elapsed - state.lastLine >= interval {
                state.lastLine = elapsed
                out += Self.line(progress, elapsed: elapsed) + "\n"
            }
            if !out.isEmpty { FileHandle.standardError.write(Data(Terminal.visible(out).utf8)) }
        }
    }

    private static func done(_ counts: [NodeStatus: Int]) -> Int {
        NodeStatus.allCases.filter(\.isFinal).reduce(0) { $0 + (counts[$1] ?? 0) }
    }

    /// `[1m05s] decode ended: 117 succeeded, 2 failed`.
    static func ended(_ task: String, _ counts: [NodeStatus: Int], elapsed: Duration) -> String {
        let parts = [NodeStatus.succeeded, .cached, .restored, .failed, .skipped, .cancelled].compactMap {
            status -> String? in
            guard let count = counts[status], count > 0 else { return nil }
            return "\(count) \(status.rawValue)"
        }
        return "[\(format(elapsed))] \(task) ended: " + parts.joined(separator: ", ")
    }

    /// `[15.0s] 159/357 done, 4 running, 1 failed: fetch 119/119, decode 40/119 (4 running, 1 failed), save 0/119`.
    static func line(_ progress: OrderedDictionary<String, [NodeStatus: Int]>, elapsed: Duration) -> String {
        var all: [NodeStatus: Int] = [:]
        var tasks: [String] = []
        for (task, counts) in progress {
            let total = counts.values.reduce(0, +)
            guard total > 0 else { continue }
            all.merge(counts, uniquingKeysWith: +)
            tasks.append("\(task) \(done(counts))/\(total)" + activity(counts, parenthesized: true))
        }
        let total = all.values.reduce(0, +)
        return "[\(format(elapsed))] \(done(all))/\(total) done" + activity(all, parenthesized: false) + ": "
            + tasks.joined(separator: ", ")
    }

    /// ", 4 running, 1 failed" or " (4 running, 1 failed)"; empty when nothing runs or failed.
    private static func activity(_ counts: [NodeStatus: Int], parenthesized: Bool) -> String {
        var parts: [String] = []
        if let running = counts[.running], running > 0 { parts.append("\(running) running") }
        if let failed = counts[.failed], failed > 0 { parts.append("\(failed) failed") }
        guard !parts.isEmpty else { return "" }
        let joined = parts.joined(separator: ", ")
        return parenthesized ? " (\(joined))" : ", \(joined)"
    }

    /// `12.3s`, `6m32s`, `1h02m`: the elapsed time as a log reads it.
    static func format(_ elapsed: Duration) -> String {
        let seconds = elapsed.seconds
        if seconds < 60 { return String(format: "%.1fs", seconds) }
        let whole = Int(seconds)
        if whole < 3600 { return String(format: "%dm%02ds", whole / 60, whole % 60) }
        return String(format: "%dh%02dm", whole / 3600, (whole % 3600) / 60)
    }
}
