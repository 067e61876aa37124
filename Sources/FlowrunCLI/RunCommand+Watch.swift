import ArgumentParser
import FlowBasics
import FlowKit
import Foundation

extension RunCommand {
    /// `--watch`: runs, then runs again whenever what the workflow reads changes, one line per run; Ctrl-C (or
    /// `--watch-runs`) ends it with the summary of the last run.
    func runWatching(options: SessionOptions, signals: SignalHandler, terminal: Terminal) throws {
        let workflow = self.workflow
        let watch = WorkflowWatch(
            path: workflow.workflow,
            load: { _ in
                do {
                    return workflow.load(terminal: terminal, environment: try workflow.environment(terminal))
                } catch {
                    return WorkflowLoader.LoadResult(plan: nil, diagnostics: Diagnostics(), sources: [:])
                }
            },
            session: { RunSession(plan: $0, options: options) },
            extraFiles: workflow.envFiles, settle: watchSettle ?? WorkflowWatch.defaultSettle)
        let interrupted = LockedBox(false)
        signals.watching {
            interrupted.withLock { $0 = true }
            return watch.cancel()
        }
        let last = LockedBox<RunReport?>(nil)
        do {
            try watch.run(limit: watchRuns) { cycle in
                terminal.printPainted(WatchLine(cycle: cycle, terminal: terminal).render())
                if case .ran(let report) = cycle.outcome { last.withLock { $0 = report } }
            }
        } catch {
            terminal.error("error: \(error)\n")
            throw ExitCode(2)
        }
        signals.waitUntilReported()
        guard let report = last.withLock({ $0 }) else { throw ExitCode(2) }
        let summary = SummaryTable(report: report, terminal: terminal, listAll: verbose, quiet: quiet)
        if verbose || report.failureCount > WatchLine.namedFailures {
            terminal.printPainted(summary.render())
        } else if !quiet {
            // The last run's line named each of its failures already: the totals end the watch.
            terminal.printPainted(summary.totals() + "\n")
        }
        try write(report)
        throw ExitCode(interrupted.withLock { $0 } ? 130 : report.exitCode)
    }
}

/// The line `--watch` prints for each run: when, what woke it, and how it ended; below it, each failure of the
/// run with its cause.
struct WatchLine {
    let cycle: WorkflowWatch.Cycle
    let terminal: Terminal

    /// Up to this many changed paths are named.
    static let namedChanges = 3
    /// Up to this many failures of a run are named below its line.
    static let namedFailures = 5

    /// The line and the failures, every piece of user text made visible, painted when colours are on: print it
    /// with ``Terminal/printPainted(_:)``.
    func render() -> String {
        let time = Date().formatted(.iso8601.time(includingFractionalSeconds: false))
        var line = "[\(time)] run \(cycle.number)"
        if let changes = cycle.changes { line += " after " + Self.describe(changes) }
        var failures = ""
        switch cycle.outcome {
        case .ran(let report):
            line = Terminal.visible(line) + ": "
            line += SummaryTable(report: report, terminal: terminal, listAll: false, quiet: false).totals()
            let named = report.rootFailures(limit: Self.namedFailures)
            for failure in named { failures += "  " + Terminal.visible(SummaryTable.describe(failure)) + "\n" }
            let count = report.failureCount
            if count > named.count { failures += "  (\(count - named.count) more failures)\n" }
            return line + "\n" + failures
        case .invalid(let loaded):
            line += ": \(WorkflowOptions.errorCount(loaded)); nothing was run, watching for the next change"
        case .notRun(let error):
            line += ": \(error); nothing was run"
        }
        return Terminal.visible(line) + "\n"
    }

    /// "1 change (photos/new.jpg)", "12 changes (a.jpg, b.jpg, c.jpg, …)".
    static func describe(_ changes: WatchChanges) -> String {
        if changes.overflowed { return "many changes (the system dropped some events)" }
        let count = changes.paths.count
        var names = changes.paths.prefix(namedChanges).map { $0.lexicallyNormalized().string }.joined(separator: ", ")
        if count > namedChanges { names += ", …" }
        return "\(count) change\(count == 1 ? "" : "s") (\(names))"
    }
}
