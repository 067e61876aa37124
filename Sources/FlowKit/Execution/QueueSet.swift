import Foundation
import OrderedCollections

/// One `OperationQueue` per declared queue, named after it, with its concurrency limit and QoS.
final class QueueSet: Sendable {
    /// The queues by name; `default` is always present.
    let queues: [String: OperationQueue]
    /// Each queue's limit.
    let limits: [String: Int]
    /// The queue of tasks without `queue:`.
    private let defaultQueue: OperationQueue

    init(workflow: Workflow, defaultLimit: Int?) {
        var queues: [String: OperationQueue] = [:]
        var limits: [String: Int] = [:]
        let cores = ProcessInfo.processInfo.activeProcessorCount
        for (name, spec) in workflow.queues {
            let queue = OperationQueue()
            queue.name = "flowrun.\(name)"
            let limit = (name == QueueSpec.defaultName ? defaultLimit : nil) ?? spec.maxConcurrent ?? cores
            queue.maxConcurrentOperationCount = limit
            queue.qualityOfService = spec.qos.foundationValue
            queues[name] = queue
            limits[name] = limit
        }
        self.queues = queues
        self.limits = limits
        // Workflow decoding always declares `default`; a plan built by hand may not.
        self.defaultQueue = queues[QueueSpec.defaultName] ?? OperationQueue()
    }

    subscript(name: String) -> OperationQueue {
        queues[name] ?? defaultQueue
    }
}

extension QualityOfServiceName {
    var foundationValue: QualityOfService {
        switch self {
        case .userInteractive: .userInteractive
        case .userInitiated: .userInitiated
        case .default: .default
        case .utility: .utility
        case .background: .background
        }
    }
}

extension PriorityName {
    var foundationValue: Operation.QueuePriority {
        switch self {
        case .veryLow: .veryLow
        case .low: .low
        case .normal: .normal
        case .high: .high
        case .veryHigh: .veryHigh
        }
    }
}
