import FlowBasics
import Foundation

/// What happened in a run: every node's status, attempts, times and cause, and the totals.
///
/// `--report run.json` writes this as JSON; the summary table and the Chrome trace are drawn from it.
public struct RunReport: Sendable, Decodable {
    /// One attempt of a node, as placed on its queue.
    package struct Span: Sendable, Codable, Hashable {
        /// Seconds from the start of the run.
        package var start: Double
        /// Seconds from the start of the run.
        package var end: Double
        /// The slot of the queue the attempt ran in (0-based), one trace lane per slot.
        package var lane: Int
        /// The attempt number, 1-based.
        package var attempt: Int
    }

    /// One node's record.
    public struct Node: Sendable, Codable {
        /// The node id, e.g. `fetch[photos/a.jpg]`.
        public var id: String
        /// The task id.
        public var task: String
        /// The position of the node's `forEach` item in its list; `nil` for a task's only node.
        public var item: Int? = nil
        /// The task type.
        public var type: String
        /// The queue.
        public var queue: String
        /// The final status.
        public var status: NodeStatus
        /// How many attempts started.
        public var attempts: Int
        /// The failure code, for failed and skipped nodes.
        public var code: String?
        /// Why the node failed, was skipped or cancelled.
        public var cause: String?
        /// Where the task of a failed node is written, as `path:line:col`.
        public var location: String?
        /// Whether a failure is tolerated by `continueOnError`.
        package var continueOnError: Bool
        /// Every attempt's place on its queue.
        package var spans: [Span]
        /// The nodes this one depends on, as positions in ``RunReport/nodes``.
        package var dependencies: [Int] = []
        /// The file the node wrote, when the run collected previews (``RunOptions/previews``).
        public var artifact: Artifact?
        /// The node's key in the store (``NodeKey``), when the run used one.
        package var key: String? = nil
        /// For a node that ran after some dependencies did not succeed (`runIf: always`, …): those
        /// dependencies, whose outputs it did not receive.
        package var missingInputs: [String]? = nil
        /// What the node tolerated but reported, e.g. `16 extraneous bytes before marker 0xe1`; `nil` when none.
        package var warnings: [String]? = nil

        /// When the first attempt started, in seconds from the start of the run.
        public var start: Double? { spans.first?.start }
        /// When the last attempt ended, in seconds from the start of the run.
        public var end: Double? { spans.last?.end }

        /// The node's running time, if it ran.
        public var duration: Double? {
            guard let start, let end else { return nil }
            return end - start
        }
    }

    /// The workflow's name.
    public var workflow: String
    /// The workflow file.
    public var path: String
    /// When the run started (wall clock).
    public var startedAt: Date
    /// How long the run took, in seconds.
    public var duration: Double
    /// Whether the run was interrupted (Ctrl-C, SIGTERM).
    public var interrupted: Bool
    /// Every node, in plan order.
    public let nodes: Nodes
    /// Each queue's concurrency limit.
    package var queueLimits: [String: Int]
    /// The workflow's tasks, in the order written.
    package var tasks: [TaskRecord] {
        get {
            switch taskList {
            case .specs(let specs): specs.map(TaskRecord.init)
            case .records(let records): records
            }
        }
        set { taskList = .records(newValue) }
    }
    /// The tasks as the run planned them, made into records only when read: a run of 20,000 tasks whose report
    /// nobody writes pays nothing for them (keeping the plan's array is a retain).
    var taskList = TaskList.records([])

    /// The shard this run was, when it was one part of a run split over machines (`--shard K/N`).
    package var shard: Shard?
    /// How many nodes ended in each status.
    public let totals: [NodeStatus: Int]
    /// Whether a node failed without `continueOnError`.
    private let failed: Bool

    /// The process exit code this run calls for: 0 all succeeded, 1 a node failed, 130 interrupted.
    ///
    /// A cancelled node is not a failure: fail-fast cancels nodes only after one failed (which sets the code),
    /// and nodes the embedding app cancelled (``Runner/cancel(item:cause:)``) were not wanted any more.
    public var exitCode: Int32 { interrupted ? 130 : (failed ? 1 : 0) }

    /// Creates a report.
    package init(
        workflow: String, path: String, startedAt: Date, duration: Double, interrupted: Bool, nodes: Nodes,
        queueLimits: [String: Int]
    ) {
        self.workflow = workflow
        self.path = path
        self.startedAt = startedAt
        self.duration = duration
        self.interrupted = interrupted
        self.nodes = nodes
        self.queueLimits = queueLimits
        // One pass over the statuses alone: a runner's nodes are made when read, and this runs once.
        var totals: [NodeStatus: Int] = [:]
        var failed = false
        for index in nodes.indices {
            let status = nodes.status(at: index)
            totals[status, default: 0] += 1
            if status == .failed { failed = failed || !nodes.continuesOnError(at: index) }
        }
        self.totals = totals
        self.failed = failed
    }

    /// The same report, each node with its store key (`nil` for a node without one, a `noop`'s).
    package func keyed(by keys: [NodeKey?]) -> RunReport {
        var keyed = RunReport(
            workflow: workflow, path: path, startedAt: startedAt, duration: duration, interrupted: interrupted,
            nodes: nodes.keyed(by: keys), queueLimits: queueLimits)
        keyed.taskList = taskList
        return keyed
    }

    /// The same report, each node amended as it is made (``Nodes/amended(_:)``).
    package func amendingNodes(_ amend: @escaping @Sendable (Int, inout Node) -> Void) -> RunReport {
        var amended = RunReport(
            workflow: workflow, path: path, startedAt: startedAt, duration: duration, interrupted: interrupted,
            nodes: nodes.amended(amend), queueLimits: queueLimits)
        amended.taskList = taskList
        amended.shard = shard
        return amended
    }

    // MARK: JSON

    /// The keys of the JSON form: the report, plus its exit code and totals for readers that do not recompute.
    enum CodingKeys: String, CodingKey {
        case version, workflow, path, startedAt, duration, interrupted, exitCode, totals, queues, tasks, shard, nodes
    }

    /// The version of the JSON form: 2 since nodes may leave to their task's record what it says once for all
    /// of them (`type`, `queue`, `continueOnError`); a report without one is version 1, every node whole.
    static let formatVersion = 2

    /// Reads a report that `--report` wrote, of version 1 or 2.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let workflow = try container.decode(String.self, forKey: .workflow)
        let path = try container.decode(String.self, forKey: .path)
        let startedAt = try container.decode(Date.self, forKey: .startedAt)
        let duration = try container.decode(Double.self, forKey: .duration)
        let interrupted = try container.decode(Bool.self, forKey: .interrupted)
        // Reports written before the task list read with none.
        let tasks = try container.decodeIfPresent([TaskRecord].self, forKey: .tasks) ?? []
        let tasksByID = Dictionary(tasks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var list = try container.nestedUnkeyedContainer(forKey: .nodes)
        var nodes: [Node] = []
        nodes.reserveCapacity(list.count ?? 0)
        while !list.isAtEnd { nodes.append(try Node(from: list.superDecoder(), tasks: tasksByID)) }
        self.init(
            workflow: workflow, path: path, startedAt: startedAt, duration: duration, interrupted: interrupted,
            nodes: Nodes(nodes), queueLimits: try container.decode([String: Int].self, forKey: .queues))
        self.tasks = tasks
        shard = try container.decodeIfPresent(Shard.self, forKey: .shard)
    }

    /// The report as JSON, in memory: the bytes ``write(toPath:)`` writes, for small reports and tests.
    public func jsonData() throws -> Data {
        var writer = JSONWriter()
        try write(to: &writer)
        return Data(writer.contents())
    }

    /// Writes the report as JSON to `path`, one node at a time (a node per line), replacing the file
    /// atomically: memory does not grow with the number of nodes. Reads back with `JSONDecoder`.
    public func write(toPath destination: String) throws {
        var writer = try JSONWriter(path: destination)
        do {
            try write(to: &writer)
        } catch {
            writer.abandon()
            throw error
        }
        try writer.commit()
    }

    private func write(to stream: inout JSONWriter) throws {
        try stream.literal("{\n  \"version\": ")
        try stream.value(Self.formatVersion)
        try stream.literal(",\n  \"workflow\": ")
        try stream.value(workflow)
        try stream.literal(",\n  \"path\": ")
        try stream.value(path)
        try stream.literal(",\n  \"startedAt\": ")
        try stream.value(startedAt.formatted(.iso8601))
        try stream.literal(",\n  \"duration\": ")
        try stream.value(duration)
        try stream.literal(",\n  \"interrupted\": ")
        try stream.value(interrupted)
        try stream.literal(",\n  \"exitCode\": ")
        try stream.value(Int(exitCode))
        try stream.literal(",\n  \"totals\": ")
        try stream.value(
            JSONValue(sorting: Dictionary(uniqueKeysWithValues: totals.map { ($0.key.rawValue, .integer($0.value)) })))
        try stream.literal(",\n  \"queues\": ")
        try stream.value(JSONValue(sorting: queueLimits.mapValues(JSONValue.integer)))
        let tasks = self.tasks
        try stream.literal(",\n  \"tasks\": ")
        try stream.value(JSONValue.list(tasks.map(\.json)))
        if let shard {
            try stream.literal(",\n  \"shard\": ")
            try stream.value(shard.description)
        }
        try stream.literal(",\n  \"nodes\": [")
        var taskFields = Node.TaskFields(tasks: tasks)
        for (position, node) in nodes.enumerated() {
            try stream.literal(position == 0 ? "\n    " : ",\n    ")
            try node.write(to: &stream, taskFields: &taskFields)
        }
        try stream.literal("\n  ]\n}\n")
    }
}

extension RunReport {
    /// The nodes of a report, in plan order. A runner's report makes each node when it is read, from the run's
    /// own records, so a million-node run does not hold a second million-entry copy; a decoded report holds
    /// an array.
    public struct Nodes: RandomAccessCollection, Sendable {
        /// How many nodes the report has.
        public let count: Int
        private let node: @Sendable (Int) -> Node
        private let status: @Sendable (Int) -> NodeStatus
        private let continuesOnError: @Sendable (Int) -> Bool

        /// Nodes held in an array.
        package init(_ nodes: [Node]) {
            count = nodes.count
            node = { nodes[$0] }
            status = { nodes[$0].status }
            continuesOnError = { nodes[$0].continueOnError }
        }

        /// Nodes made on demand: `node(i)` for `i` in `0..<count`, with what a summary scans for cheaply.
        init(
            count: Int, node: @escaping @Sendable (Int) -> Node, status: @escaping @Sendable (Int) -> NodeStatus,
            continuesOnError: @escaping @Sendable (Int) -> Bool
        ) {
            self.count = count
            self.node = node
            self.status = status
            self.continuesOnError = continuesOnError
        }

        /// The same nodes, each with its store key (``RunReport/Node/key``).
        package func keyed(by keys: [NodeKey?]) -> Nodes {
            let node = self.node
            return Nodes(
                count: count,
                node: { position in
                    var made = node(position)
                    made.key = keys[position]?.hex
                    return made
                }, status: status, continuesOnError: continuesOnError)
        }

        /// The same nodes, each amended by position as it is made; statuses are not amended.
        package func amended(_ amend: @escaping @Sendable (Int, inout Node) -> Void) -> Nodes {
            let node = self.node
            return Nodes(
                count: count,
                node: { position in
                    var made = node(position)
                    amend(position, &made)
                    return made
                }, status: status, continuesOnError: continuesOnError)
        }

        /// A node's status, without making the whole node.
        package func status(at position: Int) -> NodeStatus { status(position) }

        /// Whether a node's failure is tolerated, without making the whole node.
        package func continuesOnError(at position: Int) -> Bool { continuesOnError(position) }

        /// The first node's position: 0.
        public var startIndex: Int { 0 }
        /// The position after the last node: ``count``.
        public var endIndex: Int { count }
        /// The node at `position`, in plan order.
        public subscript(position: Int) -> Node { node(position) }
    }
}

extension RunReport.Node {
    /// The fields a node takes from its task, encoded once for a run of nodes of the same task (the nodes of
    /// a forEach task are neighbours in plan order) rather than escaped again for each node. Where the report's
    /// task list says the same, `type`, `queue` and `continueOnError` are left to it: a node names only its task.
    struct TaskFields {
        private let tasks: [String: RunReport.TaskRecord]
        private var task = ""
        private var type = ""
        private var queue = ""
        private var continueOnError = false
        private var bytes: [UInt8] = []

        init(tasks: [RunReport.TaskRecord]) {
            self.tasks = Dictionary(tasks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }

        mutating func encoded(for node: RunReport.Node) -> [UInt8] {
            if bytes.isEmpty || node.task != task || node.type != type || node.queue != queue
                || node.continueOnError != continueOnError
            {
                (task, type, queue, continueOnError) = (node.task, node.type, node.queue, node.continueOnError)
                bytes = Array(",\"task\":".utf8) + JSONWriter.quoted(task)
                if let record = tasks[task], record.type == type, record.queue == queue,
                    record.continueOnError == continueOnError
                {
                    return bytes
                }
                bytes +=
                    Array(",\"type\":".utf8) + JSONWriter.quoted(type) + Array(",\"queue\":".utf8)
                    + JSONWriter.quoted(queue) + Array(",\"continueOnError\":\(continueOnError)".utf8)
            }
            return bytes
        }
    }

    /// `,"status":"succeeded","attempts":` and its like, by ``NodeStatus/ordinal``: no status is escaped per node.
    private static let statusFields = NodeStatus.allCases.map {
        Array(",\"status\":".utf8) + JSONWriter.quoted($0.rawValue) + Array(",\"attempts\":".utf8)
    }

    /// Writes the node as one JSON object; ``RunReport/Node``'s `Decodable` conformance reads it back
    /// (`RunReportTests` checks that every property makes the round trip).
    func write(to stream: inout JSONWriter, taskFields: inout TaskFields) throws {
        try stream.literal("{\"id\":")
        try stream.value(id)
        if let item {
            try stream.literal(",\"item\":")
            try stream.value(item)
        }
        try stream.bytes(taskFields.encoded(for: self))
        try stream.bytes(Self.statusFields[status.ordinal])
        try stream.value(attempts)
        if let code {
            try stream.literal(",\"code\":")
            try stream.value(code)
        }
        if let cause {
            try stream.literal(",\"cause\":")
            try stream.value(cause)
        }
        if let location {
            try stream.literal(",\"location\":")
            try stream.value(location)
        }
        if let warnings {
            try stream.literal(",\"warnings\":[")
            for (position, warning) in warnings.enumerated() {
                if position > 0 { try stream.literal(",") }
                try stream.value(warning)
            }
            try stream.literal("]")
        }
        if let key {
            try stream.literal(",\"key\":")
            try stream.value(key)
        }
        if let missingInputs {
            try stream.literal(",\"missingInputs\":[")
            for (position, id) in missingInputs.enumerated() {
                if position > 0 { try stream.literal(",") }
                try stream.value(id)
            }
            try stream.literal("]")
        }
        try stream.literal(",\"spans\":[")
        for (position, span) in spans.enumerated() {
            try stream.literal(position == 0 ? "{\"start\":" : ",{\"start\":")
            try stream.value(seconds: span.start)
            try stream.literal(",\"end\":")
            try stream.value(seconds: span.end)
            try stream.literal(",\"lane\":")
            try stream.value(span.lane)
            try stream.literal(",\"attempt\":")
            try stream.value(span.attempt)
            try stream.literal("}")
        }
        try stream.literal("],\"dependencies\":[")
        for (position, dependency) in dependencies.enumerated() {
            if position > 0 { try stream.literal(",") }
            try stream.value(dependency)
        }
        try stream.literal("]")
        if let artifact {
            try stream.literal(",\"artifact\":{\"path\":")
            try stream.value(artifact.path)
            if let preview = artifact.preview {
                try stream.literal(",\"preview\":\"")
                try stream.raw(preview.base64EncodedString())
                try stream.literal("\"")
            }
            try stream.literal("}")
        }
        try stream.literal("}")
    }
}

extension RunReport.Nodes: Decodable {
    /// Reads the nodes of a report, each node whole.
    public init(from decoder: any Decoder) throws {
        self.init(try [RunReport.Node](from: decoder))
    }
}
