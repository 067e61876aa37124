import ArgumentParser
import FlowKit

/// `flowrun validate WORKFLOW`: load, validate, expand and print the plan, running nothing.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate", abstract: "Check a workflow and print its plan without running it (same as --dry-run)."
    )

    @OptionGroup var workflow: WorkflowOptions

    @OptionGroup(title: "Re-running") var store: StoreOptions

    @Flag(help: "Decide as a run with --no-optimize would (shrink-on-load changes pixels, so it is in every key).")
    var noOptimize = false

    func run() throws {
        let terminal = Terminal()
        let options = store.sessionOptions(run: RunOptions(optimize: !noOptimize), terminal: terminal)
        try terminal.printPreview(of: RunSession(plan: workflow.loadPlan(terminal: terminal), options: options))
    }
}
