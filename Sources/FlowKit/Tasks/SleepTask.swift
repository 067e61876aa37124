import Dispatch
import FlowBasics
import Foundation

/// `sleep`: waits for `duration`, and stops at once when cancelled.
package struct SleepTask: TaskType {
    package init() {}
    package var name: String { "sleep" }
    package var summary: String { "Waits for a duration; cancellable mid-sleep." }
    package var consumes: InputRequirement { .none }
    package var provides: ProviderKind? { nil }
    package func makeOperation(_ context: NodeContext) -> FlowOperation { SleepOperation(context: context) }

    /// The parameters of ``SleepTask``.
    package struct Parameters: TaskParameters {
        @Parameter(help: "How long to wait: 250ms, 20s, 2m.")
        package var duration: Duration
        package init() {}
    }
}

/// The operation of ``SleepTask``: a timer, not a blocked thread, so sleeping nodes hold no worker.
package final class SleepOperation: FlowOperation, @unchecked Sendable {
    private let timer = LockedBox<(any DispatchSourceTimer)?>(nil)

    package override func execute() {
        let duration = context.parameters(as: SleepTask.Parameters.self).duration
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.setEventHandler { [weak self] in self?.wake(cancelled: false) }
        source.schedule(deadline: .now() + duration.seconds)
        timer.withLock { $0 = source }
        source.resume()
        whenCancelled { [weak self] in self?.wake(cancelled: true) }
    }

    private func wake(cancelled: Bool) {
        guard
            let source = timer.withLock({ timer -> (any DispatchSourceTimer)? in
                defer { timer = nil }
                return timer
            })
        else { return }
        source.cancel()
        finish(cancelled ? .cancelled : .success(nil))
    }
}
