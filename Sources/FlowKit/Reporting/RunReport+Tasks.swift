extension RunReport {
    /// Where ``tasks`` comes from.
    enum TaskList: Sendable {
        case specs([TaskSpec])
        case records([TaskRecord])
    }

    /// One task of the workflow, as reports draw the task graph.
    public struct TaskRecord: Sendable, Codable {
        /// The task id.
        public var id: String
        /// The task type.
        public var type: String
        /// The queue.
        public var queue: String
        /// The ids of the tasks it depends on.
        public var dependsOn: [String]
        /// Where the task is written, `path:line:col`.
        public var location: String
        /// Whether the task has a `forEach` (one node per item).
        public var forEach: Bool
        /// Whether the task runs once after every item of its dependencies.
        public var gather: Bool

        /// Creates a task record.
        public init(
            id: String, type: String, queue: String, dependsOn: [String], location: String, forEach: Bool, gather: Bool
        ) {
            self.id = id
            self.type = type
            self.queue = queue
            self.dependsOn = dependsOn
            self.location = location
            self.forEach = forEach
            self.gather = gather
        }

        /// The record of a task as written.
        public init(_ spec: TaskSpec) {
            id = spec.id.value
            type = spec.type.value
            queue = spec.queueName
            dependsOn = spec.dependsOn.map(\.value)
            location = spec.location.description
            forEach = spec.forEach != nil
            gather = spec.gather
        }
    }
}
