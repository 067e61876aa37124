import ArgumentParser
import FlowKit

extension CacheCommand {
    /// `flowrun cache clean WORKFLOW`: empties the store, or removes the stale outputs of earlier runs.
    struct Clean: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clean",
            abstract: "Empty the store (the next run runs everything), or remove the stale outputs of earlier runs.")

        @OptionGroup var location: Location

        @Flag(help: "Keep each node's latest result (what the next run can reuse); drop only superseded records.")
        var keepLast = false

        @Flag(
            help: """
                Remove only the files earlier runs wrote that the workflow no longer produces, where they still \
                hold what flowrun wrote; the store's results stay.
                """)
        var stale = false

        @Flag(help: "With --stale: list what would be removed and left, and change nothing.")
        var dryRun = false

        func validate() throws {
            if stale && keepLast {
                throw ValidationError("--stale keeps the store's results already; drop --keep-last")
            }
            if dryRun && !stale { throw ValidationError("--dry-run goes with --stale") }
        }

        func run() throws {
            let terminal = Terminal()
            if stale, BucketStore.isBucket(location.stateDir) {
                return try Self.cleanStaleInBucket(location, dryRun: dryRun, terminal: terminal)
            }
            try Self.cleaning(location, terminal: terminal, command: "cache clean") {
                if stale {
                    try Self.cleanStale(location, dryRun: dryRun, terminal: terminal)
                    return
                }
                let status = try RunStore.clean(directory: location.directory, name: location.name, keepLast: keepLast)
                terminal.print("cleaned; " + CacheCommand.describe(status, directory: location.directory))
            }
        }

        /// Runs `body` on a local store, printing its errors: a store in use or not the store's own is exit 2.
        static func cleaning(
            _ location: Location, terminal: Terminal, command: String, _ body: () throws -> Void
        ) throws {
            if BucketStore.isBucket(location.stateDir) {
                terminal.error(
                    "error: \(command) does not work on a store in a bucket (\(location.directory)): its journal "
                        + "is the runs' segments, which no run rewrites; remove the prefix with the AWS tools "
                        + "(aws s3 rm --recursive) to start afresh, or keep it: reruns read only new segments\n")
                throw ExitCode(2)
            }
            do {
                try body()
            } catch let error as StoreError {
                terminal.error("error: \(error)\n")
                throw ExitCode(2)
            } catch let exit as ExitCode {
                throw exit
            } catch {
                terminal.error("error: cannot clean \(location.directory): \(RunCommand.reason(error))\n")
                throw ExitCode(1)
            }
        }

        /// ``cleanStale(_:dryRun:terminal:)`` for a store in a bucket: its records are pulled as a run pulls them,
        /// and the files they name that the workflow no longer writes are removed; the bucket is not written.
        static func cleanStaleInBucket(_ location: Location, dryRun: Bool, terminal: Terminal) throws {
            let bucket = try terminal.exitOnFailure { () throws(SessionError) in
                try BucketStore(location.directory) { terminal.error("warning: \($0)\n") }
            }
            let produced = try location.producedOutputs(terminal: terminal)
            let directory = bucket.localDirectory
            do {
                let found =
                    dryRun
                    ? RunStore.staleOutputs(directory: directory, name: location.name, producing: produced)
                    : try RunStore.removeStaleOutputs(
                        directory: directory, name: location.name, producing: produced, forgetting: false)
                terminal.print(StaleOutputsPrinter.clean(found, dryRun: dryRun))
            } catch let error as StoreError {
                terminal.error("error: \(error)\n")
                throw ExitCode(2)
            }
        }

        /// Removes (or with `dryRun` lists) the stale outputs of earlier runs.
        static func cleanStale(_ location: Location, dryRun: Bool, terminal: Terminal) throws {
            let produced = try location.producedOutputs(terminal: terminal)
            if dryRun {
                let found = RunStore.staleOutputs(
                    directory: location.directory, name: location.name, producing: produced)
                terminal.print(StaleOutputsPrinter.clean(found, dryRun: true))
                return
            }
            let found = try RunStore.removeStaleOutputs(
                directory: location.directory, name: location.name, producing: produced)
            terminal.print(StaleOutputsPrinter.clean(found, dryRun: false))
        }
    }
}
