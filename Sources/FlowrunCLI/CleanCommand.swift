import ArgumentParser
import FlowKit

/// `flowrun clean WORKFLOW`: what `make clean` means — removes the files the store recorded writing that still
/// hold what flowrun wrote (as `ninja -t clean`), and lists what it left and why. The store's results stay:
/// forgetting them is `flowrun cache clear`.
struct CleanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Remove the files the workflow's runs wrote, where they still hold what flowrun wrote.",
        discussion: """
            Asks first on a terminal; without one, give --yes. The store's results stay (the next run writes the \
            files again, from stored outputs where it can); `flowrun cache clear` forgets them.
            """)

    @OptionGroup var location: CacheCommand.Location

    @Flag(name: .shortAndLong, help: "Remove without asking (needed where no terminal can ask).")
    var yes = false

    @Flag(help: "List what would be removed and left, and change nothing.")
    var dryRun = false

    @Flag(help: "Remove only the files earlier runs wrote that the workflow no longer produces (no question asked).")
    var stale = false

    @Flag(help: .hidden) var keepLast = false

    func validate() throws {
        if keepLast {
            throw ValidationError(
                "flowrun clean removes the files the workflow wrote now; dropping superseded results is "
                    + "`flowrun cache clean --keep-last`")
        }
    }

    func run() throws {
        let terminal = Terminal()
        if stale, BucketStore.isBucket(location.stateDir) {
            return try CacheCommand.Clean.cleanStaleInBucket(location, dryRun: dryRun, terminal: terminal)
        }
        try CacheCommand.Clean.cleaning(location, terminal: terminal, command: "clean") {
            if stale {
                try CacheCommand.Clean.cleanStale(location, dryRun: dryRun, terminal: terminal)
                return
            }
            guard location.workflow.targets.isEmpty else {
                terminal.error("error: clean removes every file the store recorded writing; drop --target\n")
                throw ExitCode(2)
            }
            let (directory, name) = (location.directory, location.name)
            let found = RunStore.writtenOutputs(directory: directory, name: name)
            let removable = found.filter(\.intact).count
            if dryRun || removable == 0 {
                terminal.print(StaleOutputsPrinter.clean(found, dryRun: true, none: "no files to remove\n"))
                return
            }
            if !yes, Confirmation.canAsk {
                terminal.print(StaleOutputsPrinter.clean(found, dryRun: true, none: ""))
            }
            let files = removable == 1 ? "1 file" : "\(removable) files"
            let go = try Confirmation.confirmed(
                "Remove \(files)?", yes: yes,
                refusal: "flowrun clean removes the \(files) the runs of \(location.workflow.workflow) wrote "
                    + "(--dry-run lists them); give --yes to remove them, as no terminal can ask. Forgetting the "
                    + "store's results, what `flowrun clean` did before, is `flowrun cache clear`",
                terminal: terminal)
            guard go else {
                terminal.print("nothing removed\n")
                return
            }
            let removed = try RunStore.removeWrittenOutputs(directory: directory, name: name)
            terminal.print(StaleOutputsPrinter.clean(removed, dryRun: false, none: "no files to remove\n"))
        }
    }
}
