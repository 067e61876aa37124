import ArgumentParser
import FlowKit

extension CacheCommand {
    /// `flowrun cache status WORKFLOW`: the store's results and size, and the stale outputs of earlier runs.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show how many results the store holds, its size, and the stale outputs of earlier runs.")

        @OptionGroup var location: Location

        func run() throws {
            let terminal = Terminal()
            var directory = location.directory
            var shown = directory
            let status: RunStore.Status
            if BucketStore.isBucket(location.stateDir) {
                let bucket = try terminal.exitOnFailure { () throws(SessionError) in
                    try BucketStore(directory) { terminal.error("warning: \($0)\n") }
                }
                status = try terminal.exitOnFailure { () throws(SessionError) in
                    try bucket.status(workflowName: location.name)
                }
                (directory, shown) = (bucket.localDirectory, bucket.url)
            } else {
                status = RunStore.status(directory: directory, name: location.name)
            }
            terminal.print(CacheCommand.describe(status, directory: shown))
            if let damage = status.damage { terminal.error("warning: store \(shown): \(damage)\n") }
            let stale = RunStore.staleOutputs(
                directory: directory, name: location.name,
                producing: try location.producedOutputs(terminal: terminal))
            terminal.print(StaleOutputsPrinter.status(stale))
        }
    }
}
