import Logging

/// Everything an operation knows about the node it runs: identity, item, parameters and run options.
public struct NodeContext: Sendable {
    /// The node id, e.g. `decode[3]`, or the task id when the task is not expanded.
    public var nodeID: String
    /// The task id the node comes from, e.g. `decode`.
    public var taskID: String
    /// The task type name.
    public var typeName: String
    /// The queue the node runs on.
    public var queueName: String
    /// The node's position in its `forEach` list, if expanded.
    public var itemIndex: Int?
    /// The node's `forEach` item, if expanded.
    public var item: Value?
    /// The resolved parameters, defaults included.
    public var parameters: ParameterValues
    /// The task id named by `input:`, when the task picks one among several providers.
    public var inputTaskID: String?
    /// The attempt number, starting at 1.
    public var attempt: Int
    /// The folder relative paths in the workflow are resolved against.
    public var workflowDirectory: String
    /// Where the task is written, for failures.
    public var location: SourceLocation?
    /// The nodes that consume this node's output: their type and parameters.
    ///
    /// Operations may use this to do less work when every consumer wants less (decode at a reduced scale
    /// when every consumer downsamples), as long as the result stays equivalent.
    public var consumers: [Consumer] { consumerList() }
    // Computed on first use: most operations never look, and a fan-out node may have thousands.
    private let consumerList: @Sendable () -> [Consumer]
    /// Whether operations may trade exactness within a level of rounding for speed (see ``Consumer``).
    public var optimize: Bool
    /// The logger for this node.
    public var logger: Logger

    /// A downstream node, as seen by its upstream.
    public struct Consumer: Sendable {
        /// The consumer's task type name.
        public var typeName: String
        /// The consumer's resolved parameters.
        public var parameters: ParameterValues
        /// The consumer's own consumers, for looking further down a chain.
        public var consumers: @Sendable () -> [Consumer]

        /// Creates a consumer description.
        public init(typeName: String, parameters: ParameterValues, consumers: @escaping @Sendable () -> [Consumer]) {
            self.typeName = typeName
            self.parameters = parameters
            self.consumers = consumers
        }
    }

    /// Creates a context; the runner does this for every attempt, tests may too.
    public init(
        nodeID: String, taskID: String? = nil, typeName: String, queueName: String = QueueSpec.defaultName,
        itemIndex: Int? = nil, item: Value? = nil,
        parameters: ParameterValues = ParameterValues(), inputTaskID: String? = nil, attempt: Int = 1,
        workflowDirectory: String = ".", location: SourceLocation? = nil,
        consumers: @autoclosure @escaping @Sendable () -> [Consumer] = [],
        optimize: Bool = true, logger: Logger = Logger(label: "flowrun")
    ) {
        self.nodeID = nodeID
        self.taskID = taskID ?? nodeID
        self.typeName = typeName
        self.queueName = queueName
        self.itemIndex = itemIndex
        self.item = item
        self.parameters = parameters
        self.inputTaskID = inputTaskID
        self.attempt = attempt
        self.workflowDirectory = workflowDirectory
        self.location = location
        self.consumerList = consumers
        self.optimize = optimize
        self.logger = logger
    }

    /// Resolves a path from the workflow against ``workflowDirectory``; absolute paths stay as they are.
    public func resolvePath(_ path: String) -> String {
        if path.hasPrefix("/") || workflowDirectory.isEmpty || workflowDirectory == "." { return path }
        return workflowDirectory.hasSuffix("/") ? workflowDirectory + path : workflowDirectory + "/" + path
    }

    /// A failure attributed to this node and its task's location.
    public func failure(_ code: NodeFailure.Code, _ message: String, cause: (any Error)? = nil) -> NodeFailure {
        NodeFailure(code, message, node: nodeID, cause: cause, location: location)
    }
}
