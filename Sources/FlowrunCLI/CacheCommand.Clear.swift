import ArgumentParser
import FlowKit

extension CacheCommand {
    /// `flowrun cache clear WORKFLOW`: forgets the workflow's results, so the next run runs everything; the files
    /// they wrote stay. Asks first, as `flowrun clean` does.
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Forget the workflow's results (the next run runs everything); the files they wrote stay.",
            discussion: "Asks first on a terminal; without one, give --yes.")

        @OptionGroup var location: Location

        @Flag(name: .shortAndLong, help: "Forget without asking (needed where no terminal can ask).")
        var yes = false

        @Flag(help: "Say what would be forgotten, and change nothing.")
        var dryRun = false

        func run() throws {
            let terminal = Terminal()
            try Clean.cleaning(location, terminal: terminal, command: "cache clear") {
                let status = RunStore.status(directory: location.directory, name: location.name)
                let results = status.entries == 1 ? "1 result" : "\(status.entries) results"
                let workflow = location.workflow.workflow
                if dryRun || status.entries == 0 && status.records == 0 {
                    terminal.print(
                        status.entries == 0 && status.records == 0
                            ? "no results of \(workflow) to forget\n"
                            : "would forget \(results) of \(workflow); the files they wrote stay\n")
                    return
                }
                let go = try Confirmation.confirmed(
                    "Forget \(results) of \(workflow) (the next run runs everything)?", yes: yes,
                    refusal: "cache clear forgets the \(results) of \(workflow) in the store (the next run runs "
                        + "everything); give --yes to forget them, as no terminal can ask",
                    terminal: terminal)
                guard go else {
                    terminal.print("nothing forgotten\n")
                    return
                }
                let after = try RunStore.clean(directory: location.directory, name: location.name)
                terminal.print("cleared; " + CacheCommand.describe(after, directory: location.directory))
            }
        }
    }
}
