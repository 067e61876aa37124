import ArgumentParser
import FlowKit
import Foundation
import Logging

/// `flowrun run WORKFLOW` (the default command): validate, then run the graph.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run a workflow (the default command).")

    @OptionGroup var workflow: WorkflowOptions

    @OptionGroup(title: "Re-running") var store: StoreOptions

    @OptionGroup(title: "Running on a cluster") var sharding: ShardOptions

    @Flag(help: "Validate and print the plan without running anything (same as `flowrun validate`).")
    var dryRun = false

    @Option(
        help: ArgumentHelp(
            "With --dry-run: print a line per task (tasks, the default) or every node (nodes).", valueName: "detail"))
    var plan: PlanDetail?

    @Flag(help: "Cancel everything at the first failure.")
    var failFast = false

    @Option(help: "Limit the `default` queue to N nodes at once (default: the number of cores).")
    var maxConcurrent: Int?

    @Option(help: ArgumentHelp("Write the run report as JSON to this file.", valueName: "run.json"))
    var report: String?

    @Option(
        help: ArgumentHelp(
            "Write a Chrome trace (Perfetto) to this file: one lane per queue slot.", valueName: "trace.json"))
    var trace: String?

    @Option(
        help: ArgumentHelp(
            "Write a JUnit XML report to this file, a test case per node (GitLab, Jenkins, GitHub test reporters).",
            valueName: "report.xml"))
    var junit: String?

    @Option(
        help: ArgumentHelp(
            "Write the run as one self-contained HTML page: graph, failures, status grid, timeline, thumbnails.",
            valueName: "run.html"))
    var html: String?

    @Flag(help: "Record a thumbnail of every image written in --report, so `flowrun report` can draw it later.")
    var previews = false

    @Flag(help: "Print only failures.")
    var quiet = false

    @Flag(help: "Log every node event, and list every node in the summary.")
    var verbose = false

    @Flag(help: "Show no progress (same as --progress none).")
    var noProgress = false

    @Option(
        help: ArgumentHelp(
            "How to show progress: a live line on a terminal (tty), a line every --progress-interval and at each "
                + "task's end for a log (plain), none, or auto: tty when stderr is a terminal, plain otherwise "
                + "(default: $\(ProgressMode.environmentVariable), or auto).", valueName: "mode"))
    var progress: ProgressMode?

    @Option(
        help: ArgumentHelp(
            "With plain progress: the time between two lines of every task (\(ProgressMode.defaultInterval.shortDescription) unless given).",
            valueName: "DURATION"),
        transform: parseProgressInterval)
    var progressInterval: Duration?

    @Flag(help: "Run every task literally: no shrink-on-load, no colour step moved after a resize.")
    var noOptimize = false

    @Flag(
        help: ArgumentHelp(
            "After the run, watch what the workflow reads (itself, imports, env files, list files, glob folders) and "
                + "run again when it changes; only what changed runs. Ctrl-C ends it."))
    var watch = false

    @Option(help: ArgumentHelp("With --watch: stop after N runs.", valueName: "N"))
    var watchRuns: Int?

    @Option(
        help: ArgumentHelp(
            "With --watch: how long what it watches must stay quiet before the next run, so a burst of new files is "
                + "one run (\(WorkflowWatch.defaultSettle.shortDescription) unless given).", valueName: "DURATION"),
        transform: parseWatchSettle)
    var watchSettle: Duration?

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose exclude each other") }
        if let maxConcurrent, !(1...QueueSpec.maxConcurrentLimit).contains(maxConcurrent) {
            throw ValidationError(
                "--max-concurrent must be from 1 to \(QueueSpec.maxConcurrentLimit), found \(maxConcurrent)")
        }
        if let watchRuns, watchRuns < 1 { throw ValidationError("--watch-runs must be at least 1") }
        if watchRuns != nil && !watch { throw ValidationError("--watch-runs needs --watch") }
        if watchSettle != nil && !watch { throw ValidationError("--watch-settle needs --watch") }
        if plan != nil && !dryRun { throw ValidationError("--plan is for --dry-run") }
        if quiet && plan != nil { throw ValidationError("--quiet prints no plan; it excludes --plan") }
        if watch && dryRun { throw ValidationError("--watch and --dry-run exclude each other") }
        if let mode = ProcessInfo.processInfo.environment[ProgressMode.environmentVariable], !mode.isEmpty,
            ProgressMode(rawValue: mode) == nil
        {
            throw ValidationError(
                "\(ProgressMode.environmentVariable)='\(mode)' is not a progress mode: auto, tty, plain or none")
        }
        if noProgress && progress != nil { throw ValidationError("--no-progress and --progress exclude each other") }
        if store.checkSources && !dryRun {
            throw ValidationError("--check-sources is for --dry-run: a run always asks the servers of http(s) sources")
        }
    }

    func run() throws {
        // Before anything that can take long or touch the store: loading a large workflow, waiting for the
        // store's lock, revalidating http(s) sources.
        let signals = SignalHandler.install()
        // Observed while this command runs; the handler stays installed until the process exits, so a signal
        // after the run ended (while a full stdout pipe holds the summary, or while the process exits) is not
        // the default action that would lose the report or turn exit 0 into a death by signal.
        defer { withExtendedLifetime(signals) {} }
        let terminal = Terminal()
        let logger = makeLogger()
        let runOptions = RunOptions(
            failFast: failFast ? true : nil, maxConcurrentDefault: maxConcurrent, optimize: !noOptimize,
            previews: previews || html != nil, logger: logger,
            observer: verbose ? Self.logEvents(to: logger) : nil)
        var options = store.sessionOptions(run: runOptions, terminal: terminal, quiet: quiet)
        options.part = sharding.part
        if watch { return try runWatching(options: options, signals: signals, terminal: terminal) }
        let cancellation = RunCancellation()
        options.cancellation = cancellation
        // Drawn from the first runner the session starts: a list made at run time runs items while preparing.
        let progress = dryRun ? nil : makeProgress(terminal: terminal)
        if let progress { options.onRunnerStart = { progress.add($0) } }
        let session = RunSession(plan: try workflow.loadPlan(terminal: terminal), options: options)
        if dryRun {
            return try terminal.printPreview(of: session, detail: plan ?? (verbose ? .nodes : .tasks), quiet: quiet)
        }
        signals.preparing(cancellation)
        let result = try terminal.exitOnFailure { () throws(SessionError) in
            defer { progress?.stop() }
            return try session.prepare().run()
        }
        signals.waitUntilReported()
        terminal.printPainted(SummaryTable(report: result, terminal: terminal, listAll: verbose, quiet: quiet).render())
        annotate(result, terminal: terminal)
        try write(result)
        throw ExitCode(result.exitCode)
    }

    func write(_ result: RunReport) throws {
        do {
            if let report { try result.write(toPath: report) }
            if let trace { try ChromeTrace.write(result, toPath: trace) }
            if let html { try HTMLReport.write(result, to: html) }
            if let junit { try JUnitReport.write(result, toPath: junit) }
        } catch let failure as FileWriteError {
            Terminal().error("error: \(failure)\n")
            throw ExitCode(result.exitCode == 0 ? 1 : result.exitCode)
        } catch let failure as HTMLStream.Failure {
            Terminal().error("error: \(failure)\n")
            throw ExitCode(result.exitCode == 0 ? 1 : result.exitCode)
        } catch {
            Terminal().error("error: cannot write \(report ?? trace ?? junit ?? "output"): \(Self.reason(error))\n")
            throw ExitCode(result.exitCode == 0 ? 1 : result.exitCode)
        }
    }

    /// GitHub's annotation of each failure of the run, with `--annotations github`.
    func annotate(_ result: RunReport, terminal: Terminal) {
        guard workflow.githubAnnotations else { return }
        let lines = result.rootFailures(limit: SummaryTable.failureListingLimit).map {
            GitHubAnnotations.line(for: $0) + "\n"
        }
        terminal.print(lines.joined())
    }

    /// The OS's words for a failed write ("File too large", "No space left on device") rather than Foundation's
    /// "The operation could not be completed. (NSCocoaErrorDomain error 512.)".
    static func reason(_ error: any Error) -> String { SessionError.reason(error) }

    /// The live line or the log's lines `--progress` asks for (`auto`, from a terminal, unless `--quiet`).
    private func makeProgress(terminal: Terminal) -> (any RunProgress)? {
        let asked =
            noProgress
            ? ProgressMode.none
            : progress
                ?? ProcessInfo.processInfo.environment[ProgressMode.environmentVariable].flatMap {
                    ProgressMode(rawValue: $0)
                }
        if quiet && (asked == nil || asked == .auto) { return nil }
        switch (asked ?? .auto).resolved(stderrIsTTY: terminal.stderrIsTTY) {
        case .tty: return ProgressLine()
        case .plain: return ProgressLog(interval: progressInterval ?? ProgressMode.defaultInterval)
        case .none, .auto: return nil
        }
    }

    private func makeLogger() -> Logger {
        var logger = Logger(label: "flowrun", factory: TerminalLogHandler.init)
        logger.logLevel = verbose ? .debug : (quiet ? .error : .warning)
        return logger
    }

    private static func logEvents(to logger: Logger) -> @Sendable (RunEvent) -> Void {
        { event in
            var message = "\(event.nodeID) \(event.status.rawValue)"
            if event.attempt > 1 { message += " (attempt \(event.attempt))" }
            if let failure = event.failure { message += ": \(failure.message)" }
            if let delay = event.retryDelay { message += "; retrying in \(delay.shortDescription)" }
            logger.debug("\(message)", metadata: ["queue": "\(event.queue)"])
        }
    }
}

/// `--watch-settle`'s value: a duration as workflows write them (`100ms`, `1.5s`), from 10 ms to 5 s (a watch
/// that stays busy runs after 10 s however long it would settle).
private func parseWatchSettle(_ text: String) throws -> Duration {
    guard let settle = Duration.parse(workflowText: text), settle >= .milliseconds(10), settle <= .seconds(5) else {
        // argument-parser names the option and the value before this.
        throw ValidationError("expected a duration from 10ms to 5s, such as 100ms")
    }
    return settle
}
