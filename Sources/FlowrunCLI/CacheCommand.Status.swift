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
            let status = RunStore.status(directory: location.directory, name: location.name)
            terminal.print(CacheCommand.describe(status, directory: location.directory))
            if let damage = status.damage { terminal.error("warning: store \(location.directory): \(damage)\n") }
            let stale = RunStore.staleOutputs(
                directory: location.directory, name: location.name,
                producing: try location.producedOutputs(terminal: terminal))
            terminal.print(StaleOutputsPrinter.status(stale))
        }
    }
}
