import Foundation
import Synchronization

/// A list made at run time whose items start while its producer still runs: every complete line the producer
/// prints is an item, and the items that arrived while the last batch was being planned are planned and started
/// together (``ItemBatch``), so batches grow as planning lags and a slow producer starts each item at once.
///
/// Only lines stream: a JSON list is read once the producer has ended (its first non-blank byte, `[` or `{`,
/// says which it is). The items read here are those the whole list has, by the same reading
/// (``RunTimeItems/items(of:keyField:)``); an item whose key an earlier one has is left to the whole list, whose
/// plan fails it.
final class StreamedList: Sendable {
    /// What the producer's run shares with the batches: its store (open, locked, closed after them), its queues
    /// (each queue's limit holds across all), its ledger of written files and its clock's origin.
    struct Shared: Sendable {
        var store: RunStore?
        var queues: QueueSet
        var outputs: OutputLedger
        var origin: RunOrigin
    }

    private struct State {
        /// What the producer printed so far, while it reads as lines.
        var printed = Data()
        /// How much of it is complete lines.
        var complete = 0
        /// How much of it the last batch was planned with.
        var planned = 0
        /// Whether a byte other than a blank has come: the first says whether the output is JSON.
        var begun = false
        /// Whether the output still reads as lines (not JSON, and planning succeeded).
        var streams = true
        /// Whether a thread is planning batches.
        var planning = false
        /// Whether the producer has ended: nothing more is planned.
        var closed = false
        /// How many items of the list the batches were planned with (the later ones are left to the whole list).
        var started = 0
        /// The list the last batch was planned with.
        var list = RunTimeItems.List(items: [])
        var batches: [ItemBatch] = []
    }

    let fanOut: Int
    private let lists: RunTimeLists
    private let shared: Shared
    private let state = Mutex(State())
    private let planning = DispatchGroup()
    /// Signalled once the producer has ended, to end the planner's rest between batches.
    private let producerEnded = DispatchSemaphore(value: 0)

    init(fanOut: Int, lists: RunTimeLists, shared: Shared) {
        self.fanOut = fanOut
        self.lists = lists
        self.shared = shared
    }

    /// Takes a chunk of the producer's standard output, and starts planning when it completes a line and no
    /// planning is under way.
    func take(_ chunk: Data) {
        let plans = state.withLock { state -> Bool in
            guard state.streams, !state.closed else { return false }
            if !state.begun, let first = chunk.first(where: { !Self.isBlank($0) }) {
                state.begun = true
                if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
                    state.streams = false
                    return false
                }
            }
            state.printed.append(chunk)
            if let newline = chunk.lastIndex(of: UInt8(ascii: "\n")) {
                state.complete = state.printed.count - (chunk.endIndex - newline) + 1
            }
            guard state.complete > state.planned, !state.planning else { return false }
            state.planning = true
            return true
        }
        guard plans else { return }
        planning.enter()
        let thread = Thread { [self] in
            planBatches()
            planning.leave()
        }
        thread.name = "flowrun.items.planning"
        thread.start()
    }

    /// Plans and starts batches until no new line is waiting.
    private func planBatches() {
        while true {
            let next = state.withLock { state -> (Data, Int)? in
                guard state.streams, !state.closed, state.complete > state.planned,
                    lists.options.cancellation?.isCancelled != true
                else {
                    state.planning = false
                    return nil
                }
                state.planned = state.complete
                return (state.printed.prefix(state.complete), state.started)
            }
            guard let (lines, started) = next else { return }
            let planningStarted = ContinuousClock.now
            guard case .success(let list) = RunTimeItems.items(of: lines, keyField: nil) else {
                // Not UTF-8 lines: the whole list fails the same way once the producer ends.
                return stopStreaming()
            }
            guard list.items.count > started else { continue }
            let batch: ItemBatch?
            do {
                batch = try ItemBatch(list, from: started, fanOut: fanOut, lists: lists, shared: shared)
            } catch {
                return stopStreaming()
            }
            state.withLock { state in
                state.started = list.items.count
                state.list = list
                if let batch { state.batches.append(batch) }
            }
            batch?.start(in: lists.options)
            restAfterPlanning(since: planningStarted)
        }
    }

    /// Waits `restPerPlanning` times as long as the batch just planned took (or until the producer ends): a batch
    /// plans every item so far, so a producer printing a line at a time would otherwise plan n²/2 items. Resting in
    /// proportion makes batches grow geometrically — planning takes at most a quarter of the producer's time, and
    /// an item waits at most a few times as long as planning the list so far takes.
    private func restAfterPlanning(since start: ContinuousClock.Instant) {
        let rest = (ContinuousClock.now - start) * Self.restPerPlanning
        guard rest > .milliseconds(1) else { return }
        _ = producerEnded.wait(timeout: .now() + .nanoseconds(Int(rest / .nanoseconds(1))))
    }

    /// How many times as long as planning a batch took the planner rests before the next.
    private static let restPerPlanning = 3

    private func stopStreaming() {
        state.withLock { state in
            state.streams = false
            state.planning = false
        }
    }

    /// Once the producer has ended: waits for the planning under way and for every batch to end, and gives what
    /// they ran — how many items of the list they started (``Started``).
    func finish() -> Started {
        state.withLock { $0.closed = true }
        producerEnded.signal()
        planning.wait()
        let (batches, list) = state.withLock { state in
            state.printed = Data()
            return (state.batches, state.list)
        }
        var started = Started(store: shared.store, list: list)
        for batch in batches {
            guard let (report, outputs) = batch.wait() else { continue }
            let at = started.reports.count
            started.reports.append(report)
            for (position, id) in batch.nodeIDs.enumerated() {
                started.records[id] = RunReport.EarlierRecord(report: at, at: position)
            }
            for (position, output) in outputs { started.outputs[batch.nodeIDs[position]] = output }
        }
        return started
    }

    /// What the batches of a list ran.
    struct Started {
        /// The store they journaled into, open and locked while batches ran: the second phase decides with what
        /// it held before the run — not with the batches' records, so an item the batches did not run is not
        /// found by the key of one they did — and closes it.
        var store: RunStore?
        /// The items of the list they were planned with (the first ones), those that started and the duplicates
        /// among them, which did not.
        var list: RunTimeItems.List
        /// Their reports.
        var reports: [RunReport] = []
        /// Where each node they ran is in ``reports``, by node id.
        var records: [String: RunReport.EarlierRecord] = [:]
        /// The outputs that nodes after the batches read, by node id.
        var outputs: [String: any Sendable] = [:]
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
            || byte == UInt8(ascii: "\r")
    }
}
