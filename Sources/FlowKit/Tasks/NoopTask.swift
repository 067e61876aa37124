/// `noop`: does nothing and succeeds; accepts any input. For tests and graph skeletons.
package struct NoopTask: StatelessTask {
    package init() {}
    package var name: String { "noop" }
    package var summary: String { "Does nothing and succeeds; for tests and graph skeletons." }
    package var consumes: InputRequirement { .anything }
    package var provides: ProviderKind? { nil }
    package var readsInput: Bool { false }
    package func makeOperation(_ context: NodeContext) -> FlowOperation { NoopOperation(context: context) }
}

/// The operation of ``NoopTask``.
package final class NoopOperation: FlowOperation, @unchecked Sendable {
    package override func execute() {
        finish(.success(nil))
    }
}
