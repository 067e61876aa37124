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

    @Option(
        help: ArgumentHelp("Print a line per task (tasks, the default) or every node (nodes).", valueName: "detail"))
    var plan: PlanDetail?

    @Flag(help: "Print every node, as --plan nodes, and more nodes per cause.")
    var verbose = false

    @Flag(help: "Print only the verdict line (and the errors).")
    var quiet = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose exclude each other") }
        if quiet && plan != nil { throw ValidationError("--quiet prints no plan; it excludes --plan") }
    }

    func run() throws {
        let terminal = Terminal()
        let options = store.sessionOptions(run: RunOptions(optimize: !noOptimize), terminal: terminal, quiet: quiet)
        try terminal.printPreview(
            of: RunSession(plan: workflow.loadPlan(terminal: terminal), options: options),
            detail: plan ?? (verbose ? .nodes : .tasks), quiet: quiet)
    }
}
