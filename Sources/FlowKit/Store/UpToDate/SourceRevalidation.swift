import Foundation
import OrderedCollections
import Synchronization

/// An operation that learns while it runs which version of its source it read — an http(s) `fetch`, from the
/// validator the server sent or the body's hash — so the store keys its result by that version and the next
/// run can ask whether it is still current (``TaskType/revalidateSource(_:directory:recorded:)``).
package protocol SourceObserving: AnyObject {
    /// The source identity of what the operation read (``SourceIdentity/description`` form), or `nil` when it
    /// learned none.
    var observedSource: String? { get }
}

/// Before a run, asks the sources that cannot be checked ahead (http(s) URLs) which version they have now, so an
/// unchanged one — a 304 to a conditional GET — keeps its node and everything downstream up to date.
///
/// Only source nodes (without dependencies) the store has a result for are asked, and not under `--force` or a
/// `--rerun` of their task; each queue's limit bounds how many of its nodes are asked at once.
package enum SourceRevalidation {
    /// The current identity of each source node that could be asked, by index in ``Plan/nodes``: what
    /// ``UpToDate/init(plan:records:settings:revalidate:)`` keys them by.
    /// - Parameter nodes: The source nodes whose source cannot be checked ahead
    ///   (``UpToDate/NodeKeys/unverifiedSourceNodes``): only those are resolved again and asked about.
    package static func check(
        _ plan: Plan, nodes: [Int], records: LatestRecords, settings: UpToDate.Settings
    ) -> [Int: SourceIdentity] {
        guard !settings.force, !records.isEmpty else { return [:] }
        var queues: [String: OperationQueue] = [:]
        let answers = Mutex<[Int: SourceIdentity]>([:])
        for index in nodes {
            let node = plan.nodes[index]
            let task = plan.workflow.tasks[node.taskIndex]
            guard task.cache != .disabled, !settings.rerun.contains(task.id.value),
                let type = plan.registry[task.type.value],
                let recorded = records[node.id]?.inputs?.source
            else { continue }
            let parameters = plan.parameters(of: node)
            let directory = plan.workflow.directory
            let queue = queues[task.queueName] ?? OperationQueue()
            if queues[task.queueName] == nil {
                queue.maxConcurrentOperationCount =
                    plan.workflow.queues[task.queueName]?.maxConcurrent ?? ProcessInfo.processInfo.activeProcessorCount
                queues[task.queueName] = queue
            }
            queue.addOperation {
                guard let current = type.revalidateSource(parameters, directory: directory, recorded: recorded)
                else { return }
                answers.withLock { $0[index] = current }
            }
        }
        for queue in queues.values { queue.waitUntilAllOperationsAreFinished() }
        return answers.withLock { $0 }
    }
}
