import FlowBasics
import FlowKit
import Foundation

/// A configurable task type for engine tests: `type: probe`, with `behavior` (succeed, fail, failTimes,
/// block), a `value` to provide as data, and a shared ``ProbeRecorder`` that sees every start and end.
///
/// ```yaml
/// tasks:
///   a: { type: probe, behavior: failTimes, failures: 2 }
///   b: { type: probe, behavior: block, dependsOn: a }   # runs until cancelled or released
/// ```
package struct ProbeTask: TaskType {
    /// What every probe node reports to.
    package let recorder: ProbeRecorder

    /// Creates the task type around a recorder.
    package init(recorder: ProbeRecorder) { self.recorder = recorder }

    package var name: String { "probe" }
    package var summary: String {
        "Test task: records its run, then succeeds, fails, or blocks until cancelled or released."
    }
    /// The parameters of ``ProbeTask``.
    package struct Parameters: TaskParameters {
        /// What a probe node does.
        package enum Behavior: String, CaseIterable, ParameterValue {
            case succeed, fail, failTimes, block
        }
        @Parameter(help: "What the node does.")
        package var behavior = Behavior.succeed
        @Parameter(help: "For failTimes: how many attempts fail.", range: 0...100)
        package var failures = 1
        @Parameter(help: "Text to provide as data (default: the node id).")
        package var value: String?
        @Parameter(
            help: "Milliseconds to hold a slot, ended early once the queue is full (to observe concurrency).",
            range: 0...10_000)
        package var hold = 0
        package init() {}
    }
    package var consumes: InputRequirement { .anything }
    package var provides: ProviderKind? { .data }
    package func makeOperation(_ context: NodeContext) -> FlowOperation {
        ProbeOperation(context: context, recorder: recorder)
    }
}

/// The operation of ``ProbeTask``. It never parks its thread: `hold` and `block` finish from callbacks, as a
/// real asynchronous operation does, so probes cannot starve the few worker threads of a 2-core machine.
package final class ProbeOperation: FlowOperation, DataProvider, @unchecked Sendable {
    private let recorder: ProbeRecorder
    private let parameters: ProbeTask.Parameters
    private let ended = LockedBox(false)

    init(context: NodeContext, recorder: ProbeRecorder) {
        self.recorder = recorder
        parameters = context.parameters(as: ProbeTask.Parameters.self)
        super.init(context: context)
    }

    package var providedData: DataPayload? { output(as: TrackedPayload.self)?.payload }

    package override func execute() {
        let inputs = inputs((any DataProvider).self).compactMap {
            $0.providedData.map { String(decoding: $0.bytes, as: UTF8.self) }
        }
        recorder.started(context, inputs: inputs, queuePriority: queuePriority)
        if parameters.behavior == .block {
            recorder.didBlock(context.nodeID) { [self] in end(outcome()) }
            whenCancelled { [self] in end(.cancelled) }
            return
        }
        guard parameters.hold > 0 else { return end(outcome()) }
        recorder.hold(milliseconds: parameters.hold, queue: context.queueName) { [self] in end(outcome()) }
    }

    private func outcome() -> Outcome {
        switch parameters.behavior {
        case .fail:
            return .failure(context.failure(.invalidInput, "probe failed on purpose"))
        case .failTimes where context.attempt <= parameters.failures:
            return .failure(context.failure(.network, "probe attempt \(context.attempt) failed"))
        default:
            let text = parameters.value ?? context.nodeID
            return .success(TrackedPayload(DataPayload(Data(text.utf8), source: context.nodeID), recorder: recorder))
        }
    }

    /// Records the end, then finishes — once, whichever of completion and cancellation comes first.
    private func end(_ outcome: Outcome) {
        let first = ended.withLock { ended -> Bool in
            defer { ended = true }
            return !ended
        }
        guard first else { return }
        if parameters.behavior == .block { recorder.didUnblock(context.nodeID) }
        // Recorded before `finish`, which frees the queue slot: after it, the next node may already start.
        recorder.ended(context)
        finish(outcome)
    }
}

/// An output that counts how many are alive, so tests can check the runner releases outputs.
final class TrackedPayload: Sendable {
    let payload: DataPayload
    let recorder: ProbeRecorder

    init(_ payload: DataPayload, recorder: ProbeRecorder) {
        self.payload = payload
        self.recorder = recorder
        recorder.outputCreated()
    }

    deinit { recorder.outputReleased() }
}
