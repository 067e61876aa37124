import ArgumentParser
import FlowKit
import Foundation

/// `flowrun cache status|clean WORKFLOW`: what the store holds, and emptying it.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache", abstract: "Show or clean the store of results that re-runs reuse.",
        subcommands: [Status.self, Clean.self])

    /// The store a cache command works on.
    struct Location: ParsableArguments {
        @OptionGroup var workflow: WorkflowOptions

        @Option(help: ArgumentHelp("The store's folder (default: .flowrun beside the workflow).", valueName: "DIR"))
        var stateDir: String?

        var directory: String { RunStore.directory(forWorkflowAt: workflow.workflow, stateDirectory: stateDir) }
        var name: String { RunStore.name(ofWorkflowAt: workflow.workflow) }

        /// The files the whole workflow writes now, which are not stale; exit 2 for an invalid workflow or a
        /// `--target` (a part of the workflow would make the rest look stale).
        func producedOutputs(terminal: Terminal) throws -> Set<String> {
            guard workflow.targets.isEmpty else {
                terminal.error("error: stale outputs are those the whole workflow no longer writes; drop --target\n")
                throw ExitCode(2)
            }
            return StaleOutput.produced(by: try workflow.loadPlan(terminal: terminal))
        }
    }

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
            if BucketStore.isBucket(location.stateDir) {
                terminal.error(
                    "error: cache clean does not work on a store in a bucket (\(location.directory)): its journal "
                        + "is the runs' segments, which no run rewrites; remove the prefix with the AWS tools "
                        + "(aws s3 rm --recursive) to start afresh, or keep it: reruns read only new segments\n")
                throw ExitCode(2)
            }
            do {
                if stale {
                    try cleanStale(terminal: terminal)
                    return
                }
                let status = try RunStore.clean(directory: location.directory, name: location.name, keepLast: keepLast)
                terminal.print("cleaned; " + CacheCommand.describe(status, directory: location.directory))
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

        private func cleanStale(terminal: Terminal) throws {
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

    static func describe(_ status: RunStore.Status, directory: String) -> String {
        let bytes = size(status.bytes)
        var out =
            "store \(directory): \(status.entries) result\(status.entries == 1 ? "" : "s") "
            + "(\(status.records) record\(status.records == 1 ? "" : "s") in the journal), \(bytes)"
        if let lastRun = status.lastRun { out += ", last recorded by the run of \(lastRun)" }
        out += "\nstored outputs: \(status.referencedBlobs) of this workflow; \(status.blobs.count) blob"
        out += "\(status.blobs.count == 1 ? "" : "s") in the store, \(size(status.blobs.bytes))"
        return out + "\n"
    }

    private static func size(_ bytes: Int64) -> String {
        bytes < 1 << 10
            ? "\(bytes) bytes"
            : bytes < 1 << 20
                ? String(format: "%.1f KiB", Double(bytes) / 1024)
                : String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}

/// `flowrun explain WORKFLOW NODE`: why a node will run (the chain of causes) or why it is cached.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain", abstract: "Say why a node will run, following the chain of causes, or why it is cached."
    )

    @OptionGroup var workflow: WorkflowOptions

    @Argument(help: "The node, e.g. 'save[photos/a.jpg]' (a task and its item's key) or report.")
    var node: String

    @OptionGroup(title: "Re-running") var store: StoreOptions

    @Flag(help: "Decide as a run with --no-optimize would.")
    var noOptimize = false

    func run() throws {
        let terminal = Terminal()
        let plan = try workflow.loadPlan(terminal: terminal)
        guard let index = plan.nodes.firstIndex(where: { $0.id == node }) else {
            let suggestion = Suggestion.closest(to: node, in: plan.nodes.prefix(10_000).map(\.id))
            terminal.error(
                "error: \(workflow.workflow) has no node '\(node)'"
                    + (suggestion.map { " (did you mean '\($0)'?)" } ?? "") + "\n")
            throw ExitCode(2)
        }
        guard let (_, decisions) = try store.decide(plan, optimize: !noOptimize, terminal: terminal) else {
            terminal.print("\(node): runs (--no-cache)\n")
            return
        }
        terminal.print(UpToDatePrinter.explain(index, plan: plan, decisions: decisions))
    }
}
