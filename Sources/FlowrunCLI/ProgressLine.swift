import Dispatch
import FlowKit
import Foundation

/// The live line on a terminal's stderr: per queue done/running/queued/failed, and the elapsed time.
final class ProgressLine: Sendable {
    private let timer = LockedBox<(any DispatchSourceTimer)?>(nil)

    func start(runner: Runner) {
        let source = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        source.schedule(deadline: .now(), repeating: .milliseconds(100))
        source.setEventHandler { [weak runner] in
            guard let runner else { return }
            FileHandle.standardError.write(
                Data(("\r\u{1B}[2K" + Terminal.visible(Self.line(runner.progress(), elapsed: runner.elapsed))).utf8))
        }
        timer.withLock { $0 = source }
        source.resume()
    }

    func stop() {
        let source = timer.withLock { timer -> (any DispatchSourceTimer)? in
            defer { timer = nil }
            return timer
        }
        guard let source else { return }
        source.cancel()
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
            return text
        }
        return parts.joined(separator: " │ ") + " │ " + String(format: "%.1fs", elapsed.seconds)
    }
}
