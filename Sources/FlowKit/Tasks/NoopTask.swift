/// `noop`: does nothing and succeeds; accepts any input. For tests and graph skeletons.
public struct NoopTask: TaskType {
    public init() {}
    public var name: String { "noop" }
    public var summary: String { "Does nothing and succeeds; for tests and graph skeletons." }
    public var consumes: InputRequirement { .anything }
    public var provides: ProviderKind? { nil }
    public var readsInput: Bool { false }
    public func makeOperation(_ context: NodeContext) -> FlowOperation { NoopOperation(context: context) }
}

/// The operation of ``NoopTask``.
public final class NoopOperation: FlowOperation, @unchecked Sendable {
    public override func execute() {
        finish(.success(nil))
    }
}
