import FlowKit
import Foundation

/// What the list sees of the run, from the runner's events: the rows whose thumbnail was saved, in order, and
/// whether the run has ended.
final class RunLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var saved: [Int] = []
    private var ended = false

    /// The runner's observer: called from the threads nodes run on.
    func record(_ event: RunEvent) {
        condition.withLock {
            if event.status == .succeeded, event.nodeID.hasPrefix("save["), let row = Self.row(of: event.nodeID) {
                saved.append(row)
            }
            if event.nodeID == "index", event.status.isFinal { ended = true }
            condition.broadcast()
        }
    }

    /// The rows saved so far, in order.
    var savedRows: [Int] { condition.withLock { saved } }

    /// Waits until `count` thumbnails are saved, or the run has ended.
    func waitUntilSaved(_ count: Int) {
        condition.withLock {
            while saved.count < count && !ended { condition.wait() }
        }
    }

    /// The row of a node such as `save[12]`; `nil` for a node of no row (`index`).
    static func row(of nodeID: String) -> Int? {
        guard let open = nodeID.firstIndex(of: "["), nodeID.hasSuffix("]") else { return nil }
        return Int(nodeID[nodeID.index(after: open)...].dropLast())
    }
}
