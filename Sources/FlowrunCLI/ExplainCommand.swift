import ArgumentParser
import FlowKit

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
        let plan = try store.withRecordedLists(workflow.loadPlan(terminal: terminal), terminal: terminal)
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
