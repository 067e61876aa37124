import Foundation
import OrderedCollections

/// One `OperationQueue` per declared queue, named after it, with its concurrency limit and QoS.
final class QueueSet: Sendable {
    /// The queues, in the order the workflow declares them (the order of ``Plan/queueIndices``).
    let queues: [OperationQueue]
    /// Each queue's limit, by name.
    let limits: [String: Int]

    init(workflow: Workflow, defaultLimit: Int?) {
        var queues: [OperationQueue] = []
        var limits: [String: Int] = [:]
        let cores = ProcessInfo.processInfo.activeProcessorCount
        for (name, spec) in workflow.queues {
            let queue = OperationQueue()
            queue.name = "flowrun.\(name)"
            let limit = (name == QueueSpec.defaultName ? defaultLimit : nil) ?? spec.maxConcurrent ?? cores
            queue.maxConcurrentOperationCount = limit
            queue.qualityOfService = spec.qos.foundationValue
            queues.append(queue)
            limits[name] = limit
        }
        self.queues = queues
        self.limits = limits
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
