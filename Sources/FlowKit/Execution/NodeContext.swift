import Logging

/// Everything an operation knows about the node it runs: identity, item, parameters and run options.
///
/// A value with copy-on-write storage: the runner makes one per attempt, and the operation, its task type
/// and its subclasses pass it around; copying it costs one retain rather than one per field.
public struct NodeContext: Sendable {
    /// The node id, e.g. `decode[3]`, or the task id when the task is not expanded.
    public var nodeID: String {
        get { storage.fields.nodeID }
        set { update { $0.nodeID = newValue } }
    }
    /// The task id the node comes from, e.g. `decode`.
    public var taskID: String {
        get { storage.fields.taskID }
        set { update { $0.taskID = newValue } }
    }
    /// The task type name.
    public var typeName: String {
        get { storage.fields.typeName }
        set { update { $0.typeName = newValue } }
    }
    /// The queue the node runs on.
    public var queueName: String {
        get { storage.fields.queueName }
        set { update { $0.queueName = newValue } }
    }
    /// The node's position in its `forEach` list, if expanded.
    public var itemIndex: Int? {
        get { storage.fields.itemIndex }
        set { update { $0.itemIndex = newValue } }
    }
    /// The node's `forEach` item, if expanded.
    public var item: Value? {
        get { storage.fields.item }
        set { update { $0.item = newValue } }
    }
    /// The resolved parameters, defaults included.
    public var parameters: ParameterValues {
        get { storage.fields.parameters }
        set { update { $0.parameters = newValue } }
    }
    /// The task id named by `input:`, when the task picks one among several providers.
    public var inputTaskID: String? {
        get { storage.fields.inputTaskID }
        set { update { $0.inputTaskID = newValue } }
    }
    /// The attempt number, starting at 1.
    public var attempt: Int {
        get { storage.fields.attempt }
        set { update { $0.attempt = newValue } }
    }
    /// The folder relative paths in the workflow are resolved against.
    public var workflowDirectory: String {
        get { storage.fields.workflowDirectory }
        set { update { $0.workflowDirectory = newValue } }
    }
    /// Where the task is written, for failures.
    public var location: SourceLocation? {
        get { storage.fields.location }
        set { update { $0.location = newValue } }
    }
    /// The nodes that consume this node's output: their type and parameters.
    ///
    /// Operations may use this to do less work when every consumer wants less (decode at a reduced scale
    /// when every consumer downsamples), as long as the result stays equivalent. Computed on each use: most
    /// operations never look, and a fan-out node may have thousands.
    public var consumers: [Consumer] {
        switch storage.fields.consumers {
        case .list(let list): list()
        case .planned(let graph, let index): graph.consumers(of: index)
        }
    }
    /// Whether operations may trade exactness within a level of rounding for speed (see ``Consumer``).
    public var optimize: Bool {
        get { storage.fields.optimize }
        set { update { $0.optimize = newValue } }
    }
    /// The logger for this node.
    public var logger: Logger {
        get { storage.fields.logger }
        set { update { $0.logger = newValue } }
    }

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
        self.init(
            Fields(
                nodeID: nodeID, taskID: taskID ?? nodeID, typeName: typeName, queueName: queueName,
                itemIndex: itemIndex, item: item, parameters: parameters, inputTaskID: inputTaskID, attempt: attempt,
                workflowDirectory: workflowDirectory, location: location, consumers: .list(consumers),
                optimize: optimize, logger: logger))
    }

    /// Where a context finds its node's consumers.
    enum ConsumerSource: Sendable {
        /// Given by the creator (tests, hand-made contexts).
        case list(@Sendable () -> [Consumer])
        /// Looked up in a plan when asked: no closure to allocate per node.
        case planned(PlanConsumers, index: Int)
    }

    /// Every field, as one value.
    struct Fields: Sendable {
        var nodeID: String
        var taskID: String
        var typeName: String
        var queueName: String
        var itemIndex: Int?
        var item: Value?
        var parameters: ParameterValues
        var inputTaskID: String?
        var attempt: Int
        var workflowDirectory: String
        var location: SourceLocation?
        var consumers: ConsumerSource
        var optimize: Bool
        var logger: Logger
    }

    /// Immutable, so sharing it between copies needs no lock; a setter makes a new one.
    private final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    init(_ fields: Fields) {
        storage = Storage(fields)
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields)
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

/// A plan's consumer lookup, shared by every context of a run.
final class PlanConsumers: Sendable {
    private let plan: Plan

    init(plan: Plan) {
        self.plan = plan
    }

    /// The consumers of a node, each able to look further down.
    func consumers(of index: Int) -> [NodeContext.Consumer] {
        plan.nodes[index].dependents.map { dependent in
            let node = plan.nodes[dependent]
            return NodeContext.Consumer(
                typeName: plan.task(of: node).type.value, parameters: plan.parameters(of: node),
                consumers: { self.consumers(of: dependent) })
        }
    }
}
