/// One check of a decoded workflow. Every check is one of these, listed once in ``ValidationPass/validators``
/// (argument-parser's `ParsableArgumentsValidation` has the same shape): a validator reports every problem it
/// finds into the diagnostics and never stops the pass, so the user sees all of them at once.
protocol WorkflowValidator: Sendable {
    /// What the validator reads: the tasks as written, or the nodes they expand to.
    var stage: ValidationStage { get }

    /// Reports what is wrong, each problem at the place in the file where it is written.
    func validate(_ context: ValidationContext, into diagnostics: inout Diagnostics)
}

/// When in the pass a validator runs.
enum ValidationStage: Sendable {
    /// On the tasks, their edges and their references, before anything is expanded.
    case tasks
    /// On every node, once `forEach` lists are expanded (``ValidationContext/expansion`` is set).
    case nodes
}

extension WorkflowValidator {
    var stage: ValidationStage { .tasks }
}
