import Dispatch
import FlowKit
import Foundation

/// Ctrl-C and SIGTERM: the first cancels the run (which then prints its summary and exits 130), the second
/// exits at once.
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

    private init(onFirst: @escaping @Sendable () -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in }
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global(qos: .userInitiated))
            sources.append(source)
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [count] in
                let seen = count.withLock { value -> Int in
                    value += 1
                    return value
                }
                if seen == 1 {
                    FileHandle.standardError.write(
                        Data("\ninterrupted: cancelling (press Ctrl-C again to exit now)\n".utf8))
                    onFirst()
                } else {
                    CommandTask.killRunningPrograms()
                    Foundation.exit(130)
                }
            }
            source.resume()
        }
    }

    /// Starts observing SIGINT and SIGTERM.
    static func install(onFirst: @escaping @Sendable () -> Void) -> SignalHandler {
        SignalHandler(onFirst: onFirst)
    }
}
