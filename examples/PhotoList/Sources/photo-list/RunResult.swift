import FlowKit
import Foundation

/// The report of a run on another thread, handed back under a lock.
final class RunResult: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: RunReport?

    var report: RunReport? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension RunReport {
    /// The status of a node by id.
    func status(of id: String) -> NodeStatus? { nodes.first { $0.id == id }?.status }
}
