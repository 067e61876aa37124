import OrderedCollections

/// A workflow as written: the parsed, type-checked form of one YAML file, with locations kept per key and
/// value so later diagnostics point at the exact token.
package struct Workflow: Sendable {
    /// The path of the file, as given.
    package var path: String
    /// The folder relative paths in the workflow are resolved against.
    package var directory: String
    /// The `version` (always 1 for a valid workflow).
    package var version: Int
    /// The `name`, or the file name without extension.
    package var name: String
    /// The `description`, if any.
    package var description: String?
    /// The `params` with their values after `--param` overrides, in the order written.
    package var params: OrderedDictionary<String, Located<Value>>
    /// The declared queues, `default` included, in the order written.
    package var queues: OrderedDictionary<String, QueueSpec>
    /// The tasks, in the order written.
    package var tasks: [TaskSpec]
    /// `failFast` at the top level.
    package var failFast: Bool
    /// The imported pipelines (`uses:`), outermost first; their tasks are among ``tasks``.
    package var groups: [TaskGroup] = []
    /// The files the workflow was loaded from — its own, its pipelines', its env files — as given.
    package var definitionFiles: [String] = []

    /// Creates a workflow.
    package init(
        path: String, directory: String, version: Int = 1, name: String, description: String? = nil,
        params: OrderedDictionary<String, Located<Value>> = [:], queues: OrderedDictionary<String, QueueSpec> = [:],
        tasks: [TaskSpec] = [], failFast: Bool = false
    ) {
        self.path = path
        self.directory = directory
        self.version = version
        self.name = name
        self.description = description
        self.params = params
        self.queues = queues
        self.tasks = tasks
        self.failFast = failFast
    }

    /// The index of each task by id.
    package func taskIndex() -> [String: Int] {
        Dictionary(tasks.enumerated().map { ($0.element.id.value, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    /// The tasks whose nodes are the items of the list a fan-out task makes: the fan-out and every task that
    /// depends on one of them without gathering.
    func tasksOverList(of fanOut: Int) -> Set<Int> {
        let taskIndex = taskIndex()
        var over = Set<Int>()
        var stack = [fanOut]
        while let task = stack.popLast() {
            guard over.insert(task).inserted else { continue }
            for (index, other) in tasks.enumerated() where !other.gather {
                if other.dependsOn.contains(where: { taskIndex[$0.value] == task }) { stack.append(index) }
            }
        }
        return over
    }
}

/// The tasks a `uses:` task imported from a pipeline file.
package struct TaskGroup: Sendable {
    /// The group id: the `uses:` task's id, dotted under the groups it is nested in (`site.thumbs`).
    package var id: String
    /// The pipeline file, as written after `uses:`.
    package var path: String
    /// Where the `uses:` task is written.
    package var location: SourceLocation
}

/// A named operation queue: `queues: { download: { maxConcurrent: 4, qos: utility } }`.
package struct QueueSpec: Sendable {
    /// The queue's name.
    package var name: String
    /// How many nodes may run at once; `nil` for the default (the number of cores).
    package var maxConcurrent: Int?
    /// The most nodes one queue may run at once, in a workflow or with `--max-concurrent`: a thread each.
    package static let maxConcurrentLimit = 10_000
    /// The quality of service of its worker threads.
    package var qos: QualityOfServiceName
    /// Where the queue is declared, if it is.
    package var location: SourceLocation?

    /// Creates a queue spec.
    package init(
        name: String, maxConcurrent: Int? = nil, qos: QualityOfServiceName = .default, location: SourceLocation? = nil
    ) {
        self.name = name
        self.maxConcurrent = maxConcurrent
        self.qos = qos
        self.location = location
    }

    /// The name of the queue every task without `queue:` runs on.
    package static let defaultName = "default"
}

/// The `qos` of a queue, as written.
package enum QualityOfServiceName: String, Sendable, CaseIterable {
    case userInteractive, userInitiated, `default`, utility, background
}

/// A node's `priority` within its queue, as written.
package enum PriorityName: String, Sendable, CaseIterable {
    case veryLow, low, normal, high, veryHigh
}
