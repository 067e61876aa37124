/// What planning learns of one node from its typed parameters: the files it names, and what the store's keys
/// need of it.
struct PlannedUse {
    /// The files it reads and writes (``TaskType/fileAccess(_:)``).
    var access: FileAccess
    /// The file it writes, as written (``TaskType/outputPath(_:)``).
    var outputPath: String?
    /// What it reads from outside the workflow (``ResolvedNodes/Source``).
    var source: ResolvedNodes.Source

    /// A node whose parameters could not be read: a required one is missing, which was reported.
    static let none = PlannedUse(access: .none, outputPath: nil, source: .none)
}

/// Tells what each node of one task does with files (``PlannedUse``), doing once for the task what its nodes
/// share: a 100,000-item task asks its type whether it reads a local source, and checks which parameters its
/// nodes have, once, not once a node.
struct TaskUsePlanner {
    let type: any TaskType
    /// The task's id, for messages.
    let task: String
    /// The workflow's folder, which the store's facts resolve against; `nil` when they are not needed
    /// (``PlannedUse/source`` is then `.none`).
    let directory: String?
    /// The type as a ``LocalSourceFile``, when it is one.
    private let localSource: (any LocalSourceFile)?
    /// What ``TaskType/checkNames(of:task:into:)`` said of the nodes with every per-node value resolved, once
    /// one was checked: those nodes have the same parameters present and given, so the same answer and messages.
    private var completeNodesHaveNames: Bool?

    init(type: any TaskType, task: String, directory: String?) {
        self.type = type
        self.task = task
        self.directory = directory
        localSource = type as? any LocalSourceFile
    }

    /// Checks one node's resolved values as a whole (``TaskType/validate(parameters:task:)``) and tells what it
    /// does with files, from one reading of its typed parameters.
    /// - Parameters:
    ///   - values: The node's values, resolved and checked one by one.
    ///   - isComplete: Whether every value of the node that mentions its item resolved: such nodes differ only in
    ///     those values, never in which parameters they have.
    mutating func use(of values: ParameterValues, isComplete: Bool, diagnostics: inout Diagnostics) -> PlannedUse {
        let hasNames: Bool
        if isComplete, let known = completeNodesHaveNames {
            hasNames = known
        } else {
            hasNames = type.checkNames(of: values, task: task, into: &diagnostics)
            if isComplete { completeNodesHaveNames = hasNames }
        }
        guard hasNames else { return .none }
        return type.plannedUse(of: values, directory: directory, localSource: localSource, diagnostics: &diagnostics)
    }
}

extension TaskType {
    /// ``TaskUsePlanner/use(of:isComplete:diagnostics:)`` once the node's parameter names are checked.
    fileprivate func plannedUse(
        of values: ParameterValues, directory: String?, localSource: (any LocalSourceFile)?,
        diagnostics: inout Diagnostics
    ) -> PlannedUse {
        guard let parameters = Parameters(complete: values) else { return .none }
        parameters.validate(reading: values.inputKind, into: &diagnostics)
        let access = fileAccess(parameters)
        guard let directory else { return PlannedUse(access: access, outputPath: nil, source: .none) }
        let source: ResolvedNodes.Source
        if let file = localSource?.sourceFile(of: parameters, directory: directory) {
            source = .file(file)
        } else {
            // A source that is no local file is asked for its identity, to learn whether it has one.
            source = sourceIdentity(parameters, directory: directory, cache: nil) != nil ? .other : .none
        }
        return PlannedUse(access: access, outputPath: outputPath(parameters), source: source)
    }
}
