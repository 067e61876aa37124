import ArgumentParser

/// `flowrun report …`: work with saved run reports. `flowrun report run.json --html run.html` renders one (the
/// default subcommand, `render`); `flowrun report merge A.json B.json…` joins the reports of a run's shards.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Render or merge saved run reports (--report run.json).",
        subcommands: [RenderReportCommand.self, MergeReportsCommand.self], defaultSubcommand: RenderReportCommand.self)
}
