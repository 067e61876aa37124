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

extension TaskType {
    /// Checks one node's resolved values as a whole (``validate(parameters:task:)``) and tells what it does with
    /// files, from one reading of its typed parameters: a 100,000-item plan reads each node's once, not once for
    /// each question.
    /// - Parameters:
    ///   - values: The node's values, resolved and checked one by one.
    ///   - task: The task's id, for messages.
    ///   - directory: The workflow's folder, which the store's facts resolve against; `nil` when they are not
    ///     needed (``PlannedUse/source`` is then `.none`).
    func plannedUse(
        of values: ParameterValues, task: String, directory: String?, diagnostics: inout Diagnostics
    ) -> PlannedUse {
        guard checkNames(of: values, task: task, into: &diagnostics), let parameters = Parameters(complete: values)
        else { return .none }
        parameters.validate(reading: values.inputKind, into: &diagnostics)
        let access = fileAccess(parameters)
        guard let directory else { return PlannedUse(access: access, outputPath: nil, source: .none) }
        let source: ResolvedNodes.Source
        if let file = (self as? any LocalSourceFile)?.sourceFile(of: parameters, directory: directory) {
            source = .file(file)
        } else {
            // A type that is no LocalSourceFile is asked for its source identity, to learn whether it has one.
            source = sourceIdentity(parameters, directory: directory, cache: nil) != nil ? .other : .none
        }
        return PlannedUse(access: access, outputPath: outputPath(parameters), source: source)
    }
}
