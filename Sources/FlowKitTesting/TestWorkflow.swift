import FlowKit
import Foundation

/// Plans and runs workflows written inline in tests.
public enum TestWorkflow {
    /// A workflow that did not validate; its description is the rendered diagnostics.
    public struct Invalid: Error, CustomStringConvertible {
        /// The rendered diagnostics.
        public var description: String
    }

    /// Plans YAML text with a registry.
    /// - Throws: ``Invalid`` with the rendered diagnostics when the workflow is not valid.
    public static func plan(
        _ yaml: String, registry: TaskRegistry, path: String = "test.yaml", environment: [String: String] = [:]
    ) throws -> Plan {
        let result = WorkflowLoader(registry: registry, environment: environment).plan(
            bytes: Array(yaml.utf8), path: path)
        guard let plan = result.plan else {
            throw Invalid(description: DiagnosticRenderer(sources: result.sources).render(result.diagnostics))
        }
        return plan
    }

    /// Starts a run on a background thread, for tests that act on it while it runs (cancel, advance a
    /// clock); `wait()` returns the report.
    public final class BackgroundRun: @unchecked Sendable {
        /// The runner, to cancel or watch.
        public let runner: Runner
        private let finished = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var result: RunReport?

        /// Starts running a plan.
        public convenience init(plan: Plan, options: RunOptions) {
            self.init(runner: Runner(plan: plan, options: options))
        }

        /// Starts a runner made beforehand, for tests that act on it before it starts.
        public init(runner: Runner) {
            self.runner = runner
            Thread.detachNewThread { [self] in
                let report = runner.run()
                lock.withLock { result = report }
                finished.signal()
            }
        }

        /// Waits for the run to end, up to `timeout`; `nil` if it did not.
        public func wait(timeout: TimeInterval = 30) -> RunReport? {
            guard finished.wait(timeout: .now() + timeout) == .success else { return nil }
            return lock.withLock { result }
        }
    }
}

extension RunReport {
    /// The record of a node by id.
    public func node(_ id: String) -> Node? { nodes.first { $0.id == id } }
    /// The status of a node by id.
    public func status(of id: String) -> NodeStatus? { node(id)?.status }
}
