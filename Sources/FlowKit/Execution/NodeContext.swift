import FlowS3
import Foundation
import Logging

/// Everything an operation knows about the node it runs: identity, item, parameters and run options.
///
/// The runner makes one per attempt, and the operation, its task type and its subclasses pass it around, so
/// it is kept small: a context the runner makes is a reference to the run's plan plus the node's index and
/// attempt, and reads each field from the plan when asked; one made by hand, or changed through a setter,
/// keeps its fields in one shared, immutable object. Either way, copying it costs one retain.
public struct NodeContext: Sendable {
    /// The node id, e.g. `decode[3]`, or the task id when the task is not expanded.
    public package(set) var nodeID: String {
        get { read(\.nodeID) { nodes, index, _ in nodes.plan.nodes[index].id } }
        set { update { $0.nodeID = newValue } }
    }
    /// The task id the node comes from, e.g. `decode`.
    public package(set) var taskID: String {
        get { read(\.taskID) { nodes, index, _ in nodes.task(of: index).id.value } }
        set { update { $0.taskID = newValue } }
    }
    /// The task type name.
    public package(set) var typeName: String {
        get { read(\.typeName) { nodes, index, _ in nodes.task(of: index).type.value } }
        set { update { $0.typeName = newValue } }
    }
    /// The queue the node runs on.
    public package(set) var queueName: String {
        get { read(\.queueName) { nodes, index, _ in nodes.task(of: index).queueName } }
        set { update { $0.queueName = newValue } }
    }
    /// The node's position in its `forEach` list, if expanded.
    public package(set) var itemIndex: Int? {
        get { read(\.itemIndex) { nodes, index, _ in nodes.plan.nodes[index].itemIndex } }
        set { update { $0.itemIndex = newValue } }
    }
    /// The node's `forEach` item, if expanded.
    public package(set) var item: Value? {
        get { read(\.item) { nodes, index, _ in nodes.plan.nodes[index].item } }
        set { update { $0.item = newValue } }
    }
    /// The resolved parameters, defaults included, by name (see ``parameters(as:)`` for the typed values).
    public package(set) var parameters: ParameterValues {
        get { read(\.parameters) { nodes, index, _ in nodes.parameters(of: index) } }
        set { update { $0.parameters = newValue } }
    }
    /// The resolved parameters, typed as the task type declares them: `context.parameters(as: Parameters.self)`.
    public func parameters<Parameters: TaskParameters>(as type: Parameters.Type) -> Parameters {
        Parameters(parameters)
    }
    /// The task id named by `input:`, when the task picks one among several providers.
    package var inputTaskID: String? {
        get { read(\.inputTaskID) { nodes, index, _ in nodes.task(of: index).input?.value } }
        set { update { $0.inputTaskID = newValue } }
    }
    /// The attempt number, starting at 1.
    public package(set) var attempt: Int {
        get { read(\.attempt) { _, _, attempt in attempt } }
        set { update { $0.attempt = newValue } }
    }
    /// The folder relative paths in the workflow are resolved against.
    public package(set) var workflowDirectory: String {
        get { read(\.workflowDirectory) { nodes, _, _ in nodes.plan.workflow.directory } }
        set { update { $0.workflowDirectory = newValue } }
    }
    /// Where the task is written, for failures.
    public package(set) var location: SourceLocation? {
        get { read(\.location) { nodes, index, _ in nodes.task(of: index).location } }
        set { update { $0.location = newValue } }
    }
    /// The nodes that consume this node's output: their type and parameters.
    ///
    /// Operations may use this to do less work when every consumer wants less (decode at a reduced scale
    /// when every consumer downsamples), as long as the result stays equivalent. Computed on each use: most
    /// operations never look, and a fan-out node may have thousands.
    public var consumers: [Consumer] {
        switch storage {
        case .fields(let box): box.fields.consumers()
        case .planned(let nodes, let index, _): nodes.consumers(of: index)
        }
    }
    /// Whether operations may trade exactness within a level of rounding for speed (see ``Consumer``).
    public package(set) var optimize: Bool {
        get { read(\.optimize) { nodes, _, _ in nodes.optimize } }
        set { update { $0.optimize = newValue } }
    }
    /// Whether the run wants a preview of what the node writes (see ``FlowOperation/record(_:)``).
    public package(set) var previews: Bool {
        get { read(\.previews) { nodes, _, _ in nodes.previews } }
        set { update { $0.previews = newValue } }
    }
    /// The files the nodes of this run have written (see ``claimOutput(_:)``).
    package var outputs: OutputLedger {
        get { read(\.outputs) { nodes, _, _ in nodes.outputs } }
        set { update { $0.outputs = newValue } }
    }
    /// The logger for this node.
    public package(set) var logger: Logger {
        get { read(\.logger) { nodes, _, _ in nodes.logger } }
        set { update { $0.logger = newValue } }
    }

    /// What takes the node's standard output while it runs, when the run wants it then (the producer of a list
    /// that streams, ``RunOptions/outputChunks``); `nil` for every other node.
    package var outputChunks: (@Sendable (Data) -> Void)? {
        read(\.outputChunks) { nodes, index, _ in nodes.outputChunks[index] }
    }

    /// A downstream node, as seen by its upstream.
    public struct Consumer: Sendable {
        /// The consumer's task type, whose declared capabilities (protocols such as FlowImaging's
        /// `PointwiseColorTask`) tell an optimisation what the consumer does with its input.
        public var type: any TaskType
        /// The consumer's resolved parameters.
        public var parameters: ParameterValues
        /// The consumer's own consumers, for looking further down a chain.
        public var consumers: @Sendable () -> [Consumer]

        /// Creates a consumer description.
        public init(type: any TaskType, parameters: ParameterValues, consumers: @escaping @Sendable () -> [Consumer]) {
            self.type = type
            self.parameters = parameters
            self.consumers = consumers
        }
    }

    /// Creates a context; the runner does this for every attempt, tests may too.
    package init(
        nodeID: String, taskID: String? = nil, typeName: String, queueName: String = QueueSpec.defaultName,
        itemIndex: Int? = nil, item: Value? = nil,
        parameters: ParameterValues = ParameterValues(), inputTaskID: String? = nil, attempt: Int = 1,
        workflowDirectory: String = ".", location: SourceLocation? = nil,
        consumers: @autoclosure @escaping @Sendable () -> [Consumer] = [],
        optimize: Bool = true, previews: Bool = false, outputs: OutputLedger = OutputLedger(),
        logger: Logger = Logger(label: "flowrun")
    ) {
        storage = .fields(
            FieldBox(
                Fields(
                    nodeID: nodeID, taskID: taskID ?? nodeID, typeName: typeName, queueName: queueName,
                    itemIndex: itemIndex, item: item, parameters: parameters, inputTaskID: inputTaskID,
                    attempt: attempt, workflowDirectory: workflowDirectory, location: location,
                    consumers: consumers, optimize: optimize, previews: previews, outputs: outputs,
                    logger: logger)))
    }

    /// A context with the given fields.
    init(fields: Fields) {
        storage = .fields(FieldBox(fields))
    }

    /// A context that reads its node's fields from the run's plan when asked.
    init(planned nodes: PlannedNodes, index: Int, attempt: Int) {
        storage = .planned(nodes, index: index, attempt: attempt)
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
        var consumers: @Sendable () -> [Consumer]
        var optimize: Bool
        var previews: Bool
        var outputs: OutputLedger
        var logger: Logger
        var outputChunks: (@Sendable (Data) -> Void)? = nil
    }

    /// Immutable, so sharing it between copies needs no lock; a setter makes a new one.
    private final class FieldBox: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private enum Storage: Sendable {
        case fields(FieldBox)
        case planned(PlannedNodes, index: Int, attempt: Int)
    }

    private var storage: Storage

    private var fields: Fields {
        switch storage {
        case .fields(let box): box.fields
        case .planned(let nodes, let index, let attempt): nodes.fields(of: index, attempt: attempt).0
        }
    }

    /// A field: from the box, or from the plan.
    @inline(__always)
    private func read<Field>(
        _ field: KeyPath<Fields, Field>, planned: (PlannedNodes, _ index: Int, _ attempt: Int) -> Field
    ) -> Field {
        switch storage {
        case .fields(let box): box.fields[keyPath: field]
        case .planned(let nodes, let index, let attempt): planned(nodes, index, attempt)
        }
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = self.fields
        change(&fields)
        storage = .fields(FieldBox(fields))
    }

    /// Resolves a path from the workflow against ``workflowDirectory``; absolute paths stay as they are.
    public func resolvePath(_ path: String) -> String {
        Self.resolve(path, in: workflowDirectory)
    }

    /// Resolves a path from a workflow against the workflow's folder; absolute paths and `s3://` locations stay
    /// as they are.
    package static func resolve(_ path: String, in directory: String) -> String {
        if path.hasPrefix("/") || S3Location.isS3(path) || directory.isEmpty || directory == "." { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }

    /// Claims a file this node is about to write, already resolved with ``resolvePath(_:)``.
    /// - Returns: `nil` when the node may write it, or the failure to finish with when another node of the
    ///   run wrote it already.
    public func claimOutput(_ path: String) -> NodeFailure? {
        guard let writer = outputs.claim(path, for: nodeID) else { return nil }
        return failure(
            .io,
            "refusing to replace '\(path)', which '\(writer)' wrote earlier in this run: give each node its own path")
    }

    /// A failure attributed to this node and its task's location.
    public func failure(_ code: NodeFailure.Code, _ message: String, cause: (any Error)? = nil) -> NodeFailure {
        NodeFailure(code, message, node: nodeID, cause: cause, location: location)
    }
}
