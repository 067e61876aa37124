import ArgumentParser
import FlowKit
import Foundation

/// `flowrun cache status|clean|clear WORKFLOW`: what the store holds, and emptying it.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache", abstract: "Show or clean the store of results that re-runs reuse.",
        subcommands: [Status.self, Clean.self, Clear.self])

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
            // What the workflow writes does not depend on its programs: a store is cleaned after a script is gone.
            return StaleOutput.produced(by: try workflow.loadPlan(terminal: terminal, checksFiles: false))
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
        if status.files.count > 0 {
            out +=
                "\nwritten files kept for restoring: \(status.files.count), "
                + size(status.files.bytes)
        }
        return out + "\n"
    }

    static func size(_ bytes: Int64) -> String {
        bytes < 1 << 10
            ? "\(bytes) bytes"
            : bytes < 1 << 20
                ? String(format: "%.1f KiB", Double(bytes) / 1024)
                : String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
