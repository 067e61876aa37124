import ArgumentParser
import FlowKit

/// `flowrun graph WORKFLOW --format dot|mermaid|json`: the expanded node graph.
struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph", abstract: "Print the expanded node graph as Graphviz dot, Mermaid or JSON.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case dot, mermaid, json
    }

    @OptionGroup var workflow: WorkflowOptions

    @Option(help: "Output format: dot, mermaid or json.")
    var format: Format = .dot

    @Flag(help: "Draw one box per task (a forEach task labelled with its item count) instead of one per node.")
    var tasks = false

    func run() throws {
        let terminal = Terminal()
        // A drawing of the graph needs no program or script to be there.
        let plan = try workflow.loadPlan(terminal: terminal, checksFiles: false)
        let renderer: any GraphDrawing = tasks ? TaskGraphRenderer(plan: plan) : GraphRenderer(plan: plan)
        switch format {
        case .dot: terminal.print(renderer.dot())
        case .mermaid: terminal.print(renderer.mermaid())
        case .json: terminal.print(renderer.json())
        }
    }
}
