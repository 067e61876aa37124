/// Describes a kind of task: its name, parameters, the kinds it consumes and provides, and the operation
/// that runs one node of it.
///
/// ## Implementation requirements
///
/// - `name` is unique in a ``TaskRegistry`` and matches what users write after `type:`.
/// - ``Parameters`` declares every key the task accepts besides the common ones (`dependsOn`, `queue`, …), once
///   (see ``TaskParameters``); the validator rejects others with a did-you-mean and checks types, ranges, rules
///   and the declaration's own checks. The operation reads them typed: `context.parameters(as: Parameters.self)`.
/// - `consumes` and `provides` are checked statically on every edge, so the operation made by
///   ``makeOperation(_:)`` can rely on finding its input among its dependencies.
/// - ``makeOperation(_:)`` is called once per attempt and must return a fresh operation each time.
///
/// A test you can copy (FlowKitTesting plans inline YAML), here with the smallest task type there is:
/// ```swift
/// import FlowKitTesting
/// import Testing
///
/// struct MyTask: TaskType {
///     var name: String { "my-task" }
///     var summary: String { "Does nothing yet." }
///     var parameters: [ParameterSpec] { [] }
///     var consumes: InputRequirement { .none }
///     var provides: ProviderKind? { nil }
///     func makeOperation(_ context: NodeContext) -> FlowOperation { DoneOperation(context: context) }
/// }
///
/// final class DoneOperation: FlowOperation, @unchecked Sendable {
///     override func execute() { finish(.success(nil)) }
/// }
///
/// @Test func myTaskRuns() async throws {
///     let plan = try TestWorkflow.plan("""
///         version: 1
///         tasks:
///           a: { type: my-task }
///         """, registry: TaskRegistry.builtIn.adding(MyTask()))
///     let report = await Runner(plan: plan).run()  // awaited: a test must not block a thread of the pool
///     #expect(report.status(of: "a") == .succeeded)
/// }
/// ```
public protocol TaskType: Sendable {
    /// The name used after `type:`.
    var name: String { get }
    /// One line for `flowrun tasks`.
    var summary: String { get }
    /// The task's own parameters, declared once (``NoParameters`` when it has none).
    associatedtype Parameters: TaskParameters = NoParameters
    /// What the task needs from its dependencies.
    var consumes: InputRequirement { get }
    /// What the task provides to its dependents, or `nil`.
    var provides: ProviderKind? { get }

    /// The files one node reads and writes, from its resolved parameters; the default is none. A task that
    /// writes files declares them so two nodes cannot silently write the same one.
    func fileAccess(_ parameters: Parameters) -> FileAccess

    /// Makes the operation that runs one attempt of one node.
    func makeOperation(_ context: NodeContext) -> FlowOperation

    /// The version of the implementation, part of every node key: bump it whenever the same inputs and
    /// parameters would give a different output, so the store stops reusing older results. Default `"1"`.
    var implementationVersion: String { get }
    /// Whether the store reuses a node's result without `cache: true`. Default `true`; `false` for tasks with
    /// side effects beyond their output (`command`).
    var cachedByDefault: Bool { get }
    /// Whether the operation reads its dependencies' outputs. Default: whether it consumes anything; `noop`
    /// accepts anything but only orders.
    var readsInput: Bool { get }

    /// The file a node writes, as written in the workflow (relative to its folder), for the store to check
    /// that it is still there and unchanged. Default `nil`.
    func outputPath(_ parameters: Parameters) -> String?

    /// What a source node reads from outside the workflow, identified for its key — a local file by path,
    /// size, modification time and inode, or by its content's hash — or `nil` when its parameters say it all.
    /// Default `nil`.
    /// - Parameters:
    ///   - parameters: The node's parameters.
    ///   - directory: The workflow's folder, which relative paths resolve against.
    ///   - cache: The task's `cache:` setting (`content` asks for a hash).
    func sourceIdentity(_ parameters: Parameters, directory: String, cache: CacheSetting?) -> SourceIdentity?

    /// The choice a node makes from its consumers that changes its output — `decode`'s shrink-on-load scale —
    /// or `nil` when its output depends on its key alone (the default). The store keeps it with a stored output
    /// and reuses the output only while the choice for the current consumers is the same.
    /// - Parameters:
    ///   - facts: The output's ``StorableOutput/variantFacts`` (e.g. the picture's full size).
    ///   - consumers: The node's consumers.
    ///   - optimize: Whether the run allows equivalent-output shortcuts.
    func outputVariant(facts: String, consumers: [NodeContext.Consumer], optimize: Bool) -> String?

    /// The identity a source that cannot be checked ahead (``SourceIdentity/changesEveryRun``, e.g. an http(s)
    /// URL) has now, asked of where it lives given the identity the store recorded after the node last ran — an
    /// http(s) `fetch` sends a conditional GET — or `nil` when that cannot be told, and the node runs. Called
    /// before a run for source nodes (without dependencies) the store has a result for, on any thread; it may
    /// block. Default `nil`.
    /// - Parameters:
    ///   - parameters: The node's parameters.
    ///   - directory: The workflow's folder.
    ///   - recorded: The source identity the store recorded (see `SourceObserving`).
    func revalidateSource(_ parameters: Parameters, directory: String, recorded: String) -> SourceIdentity?
}

extension TaskType {
    /// `"1"`.
    public var implementationVersion: String { "1" }
    /// `true`: results are reused unless the task says otherwise.
    public var cachedByDefault: Bool { true }
    /// Whether the task consumes anything.
    public var readsInput: Bool { consumes != .none }
    /// `nil`: the task writes no file.
    public func outputPath(_ parameters: Parameters) -> String? { nil }
    /// `nil`: the node's parameters say all it reads.
    public func sourceIdentity(_ parameters: Parameters, directory: String, cache: CacheSetting?) -> SourceIdentity? {
        nil
    }
    /// `nil`: the source cannot be asked, so the node runs.
    public func revalidateSource(_ parameters: Parameters, directory: String, recorded: String) -> SourceIdentity? {
        nil
    }
    /// `nil`: the output depends on the node's key alone.
    public func outputVariant(facts: String, consumers: [NodeContext.Consumer], optimize: Bool) -> String? { nil }
    /// No file read or written.
    public func fileAccess(_ parameters: Parameters) -> FileAccess { .none }

    /// The declared parameters, for validation, `flowrun tasks` and the schema.
    public var parameters: [ParameterSpec] { Parameters.declarations }
    /// The declared rules over several parameters.
    public var constraints: [ParameterConstraint] { Parameters.constraints }

    /// The spec of a parameter by name.
    package func parameter(named name: String) -> ParameterSpec? {
        parameters.first { $0.name == name }
    }

    /// The typed parameters of a node, or `nil` while a required one is missing.
    /// - Parameter shared: Parameters already read (``sharedParameters(of:excluding:)``), taken as they are.
    func decode(_ values: ParameterValues, reusing shared: [String: any ParameterDeclaration] = [:])
        -> (any TaskParameters)?
    {
        Parameters(complete: values, reusing: shared)
    }

    /// The typed parameters the nodes of a task share, read once from `values` — the task's values that do not
    /// mention the item — leaving out those named in `perNode`, which each node reads from its own.
    func sharedParameters(of values: ParameterValues, excluding perNode: Set<String>)
        -> [String: any ParameterDeclaration]
    {
        Parameters(values).parameters(excluding: perNode)
    }

    /// ``fileAccess(_:)`` of a node's parameters as the plan holds them; none while a required one is missing.
    public func fileAccess(_ values: ParameterValues) -> FileAccess {
        Parameters(complete: values).map(fileAccess) ?? .none
    }
    /// ``outputPath(_:)`` of a node's parameters as the plan holds them; `nil` while a required one is missing.
    public func outputPath(_ values: ParameterValues) -> String? {
        Parameters(complete: values).flatMap(outputPath)
    }
    /// ``sourceIdentity(_:directory:cache:)`` of a node's parameters as the plan holds them; `nil` while a required
    /// one is missing.
    public func sourceIdentity(_ values: ParameterValues, directory: String, cache: CacheSetting?) -> SourceIdentity? {
        Parameters(complete: values).flatMap { sourceIdentity($0, directory: directory, cache: cache) }
    }
    /// ``revalidateSource(_:directory:recorded:)`` of a node's parameters as the plan holds them; `nil` while a
    /// required one is missing.
    public func revalidateSource(_ values: ParameterValues, directory: String, recorded: String) -> SourceIdentity? {
        Parameters(complete: values).flatMap { revalidateSource($0, directory: directory, recorded: recorded) }
    }
}
