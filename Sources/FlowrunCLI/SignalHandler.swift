import Dispatch
import FlowBasics
import FlowKit
import Foundation

/// Ctrl-C and SIGTERM: the first cancels the run (which then prints its summary and exits 130), the second
/// exits at once. A run starts as the session prepares when the workflow has lists made at run time (their
/// producers run first). Before the run starts — while the workflow loads, the store is opened and http(s) sources are
/// revalidated — the first exits at once with 130: nothing has run and no record has been written yet (the
/// journal's records are appended only as nodes finish), and the kernel releases the store's lock with the
/// process.
///
/// The signals are observed through `DispatchSource`s, so the reaction runs as ordinary code on a queue
/// rather than in a signal context (SwiftPM's `Cancellator` does the same). Their default action is
/// replaced by an empty handler rather than `SIG_IGN`: an ignored signal stays ignored across `exec`, so
/// programs started by `command` tasks could not be stopped with SIGTERM; a handled one is reset to the
/// default in the child.
// `@unchecked`: `sources` is set once in `init` and only read after; DispatchSource is thread-safe but not
// marked Sendable.
final class SignalHandler: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let count = LockedBox(0)
    /// What the first signal does once the session may run something; it answers what to tell the user, or
    /// `nil` when nothing had started (then the process exits at once). `nil` before.
    private let cancelRun = LockedBox<(@Sendable () -> String?)?>(nil)

    /// Held while a signal is handled, from its cancelling to its message written: the cancelled command waits for
    /// it (``waitUntilReported()``) before it prints its summary and exits, or it could end before the message is
    /// written.
    private let reporting = NSLock()

    /// What the first signal says when it cancels a run under way.
    private static let cancelling = "\ninterrupted: cancelling (press Ctrl-C again to exit now)\n"

    private init() {
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in }
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global(qos: .userInitiated))
            sources.append(source)
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [count, cancelRun, reporting] in
                reporting.lock()
                defer { reporting.unlock() }
                let seen = count.withLock { value -> Int in
                    value += 1
                    return value
                }
                // Read under the lock that `running` sets it under: a signal is either before the run or in it.
                let cancel = cancelRun.withLock { $0 }
                if seen == 1, let message = cancel?() {
                    FileHandle.standardError.write(Data(message.utf8))
                } else if seen == 1 {
                    FileHandle.standardError.write(
                        Data("\ninterrupted before the run started: nothing was run or recorded\n".utf8))
                    // A run that started as the signal came (a producer of a list made at run time) leaves none
                    // of its programs behind.
                    CommandTask.killRunningPrograms()
                    Foundation.exit(130)
                } else {
                    CommandTask.killRunningPrograms()
                    Foundation.exit(130)
                }
            }
            source.resume()
        }
    }

    /// Waits until a signal being handled has written its message (at once when none is): a run or watch it
    /// cancelled ends after what the signal said.
    func waitUntilReported() {
        reporting.lock()
        reporting.unlock()
    }

    /// Starts observing SIGINT and SIGTERM: until ``preparing(_:)`` or ``watching(cancel:)``, the first ends the
    /// process with 130.
    static func install() -> SignalHandler {
        SignalHandler()
    }

    /// From now on the first signal ends a `--watch`: `cancel` answers whether a run was under way (it is being
    /// cancelled) or the watch was waiting for changes (it ends at once, with the last run's summary).
    func watching(cancel: @escaping @Sendable () -> Bool) {
        cancelRun.withLock { $0 = { cancel() ? Self.cancelling : "\ninterrupted: the watch ends\n" } }
    }

    /// While a session prepares, the first signal cancels what it has started (the producers of lists made at
    /// run time), and the command ends as the cancelled run does; before anything started, it exits at once.
    func preparing(_ cancellation: RunCancellation) {
        cancelRun.withLock { $0 = { cancellation.cancel() ? Self.cancelling : nil } }
    }
}
