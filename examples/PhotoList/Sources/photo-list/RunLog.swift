import FlowKit
import Foundation

/// What the list sees of the run, from the runner's events: the rows whose thumbnail was saved, in order, the rows
/// whose thumbnail the store kept from an earlier launch, and whether the run has ended.
final class RunLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var saved: [Int] = []
    private var cached: [Int] = []
    private var ended = false

    /// The runner's observer: called from the threads nodes run on.
    func record(_ event: RunEvent) {
        condition.withLock {
            if event.nodeID.hasPrefix("save["), let row = Self.row(of: event.nodeID) {
                if event.status == .succeeded { saved.append(row) }
                if event.status == .cached { cached.append(row) }
            }
            if event.nodeID == "index", event.status.isFinal { ended = true }
            condition.broadcast()
        }
    }

    /// The rows saved so far in this launch, in order.
    var savedRows: [Int] { condition.withLock { saved } }

    /// The rows whose thumbnail an earlier launch saved and the store found unchanged, ascending.
    var cachedRows: [Int] { condition.withLock { cached.sorted() } }

    /// Waits until `count` thumbnails are saved, or the run has ended.
    func waitUntilSaved(_ count: Int) {
        condition.withLock {
            while saved.count < count && !ended { condition.wait() }
        }
    }

    /// The row of a node such as `save[…/rows/row-12.jpg]` (items are known by their rows' files, see
    /// `PhotoRows`); `nil` for a node of no row (`index`).
    static func row(of nodeID: String) -> Int? {
        guard let marker = nodeID.range(of: "/row-", options: .backwards) else { return nil }
        return Int(nodeID[marker.upperBound...].prefix { $0.isNumber })
    }
}
