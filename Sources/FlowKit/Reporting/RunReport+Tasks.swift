import FlowBasics

extension RunReport {
    /// Where ``tasks`` comes from.
    enum TaskList: Sendable {
        case specs([TaskSpec])
        case records([TaskRecord])
    }

    /// One task of the workflow, as reports draw the task graph.
    package struct TaskRecord: Sendable, Decodable {
        /// The task id.
        package var id: String
        /// The task type.
        package var type: String
        /// The queue.
        package var queue: String
        /// The ids of the tasks it depends on.
        package var dependsOn: [String]
        /// Where the task is written, `path:line:col`.
        package var location: String
        /// Whether the task has a `forEach` (one node per item).
        package var forEach: Bool
        /// Whether the task runs once after every item of its dependencies.
        package var gather: Bool
        /// Whether a failure of its nodes is tolerated (`continueOnError`).
        package var continueOnError: Bool

        /// Creates a task record.
        package init(
            id: String, type: String, queue: String, dependsOn: [String], location: String, forEach: Bool, gather: Bool,
            continueOnError: Bool = false
        ) {
            self.id = id
            self.type = type
            self.queue = queue
            self.dependsOn = dependsOn
            self.location = location
            self.forEach = forEach
            self.gather = gather
            self.continueOnError = continueOnError
        }

        /// The record of a task as written.
        package init(_ spec: TaskSpec) {
            id = spec.id.value
            type = spec.type.value
            queue = spec.queueName
            dependsOn = spec.dependsOn.map(\.value)
            location = spec.location.description
            forEach = spec.forEach != nil
            gather = spec.gather
            continueOnError = spec.continueOnError
        }

        private enum CodingKeys: String, CodingKey {
            case id, type, queue, dependsOn, location, forEach, gather, continueOnError
        }

        /// The record as the report writes it, keys in ascending order.
        var json: JSONValue {
            [
                "continueOnError": .bool(continueOnError), "dependsOn": JSONValue(dependsOn), "forEach": .bool(forEach),
                "gather": .bool(gather), "id": .string(id), "location": .string(location), "queue": .string(queue),
                "type": .string(type),
            ]
        }

        /// Reads a record; reports written before tasks listed `continueOnError` read as not tolerating failures
        /// (their nodes say it themselves).
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            type = try container.decode(String.self, forKey: .type)
            queue = try container.decode(String.self, forKey: .queue)
            dependsOn = try container.decode([String].self, forKey: .dependsOn)
            location = try container.decode(String.self, forKey: .location)
            forEach = try container.decode(Bool.self, forKey: .forEach)
            gather = try container.decode(Bool.self, forKey: .gather)
            continueOnError = try container.decodeIfPresent(Bool.self, forKey: .continueOnError) ?? false
        }
    }
}
