import ArgumentParser
import FlowKit
import Foundation

/// The options that choose the store and what a run may reuse from it.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Keep the store of results here (default: .flowrun beside the workflow).", valueName: "DIR"))
    var stateDir: String?

    @Flag(help: "Neither read nor write the store: run every node, record nothing.")
    var noCache = false

    @Flag(help: "Run every node even when the store has its result (the results are recorded).")
    var force = false

    @Option(
        help: ArgumentHelp(
            "Run this task and everything downstream of it even when up to date (repeatable, or comma-separated).",
            valueName: "TASK"))
    var rerun: [String] = []

    @Flag(
        help: ArgumentHelp(
            "In a dry run or `explain`, ask the servers of http(s) sources whether what the store recorded is "
                + "current, as a run does (a dry run otherwise asks nothing)."))
    var checkSources = false

    @Flag(
        help: ArgumentHelp(
            "Keep a copy of every written file in the store, so one that goes missing is restored instead of made "
                + "again (a store in a bucket always keeps them)."))
    var keepOutputs = false

    @Flag(help: "Make a missing output again instead of restoring it from the store's copy.")
    var noRestore = false

    @Flag(
        help: ArgumentHelp(
            "Use the results of a store in a bucket without uploading any (a laptop reusing what CI made)."))
    var cacheReadOnly = false

    func validate() throws {
        if cacheReadOnly && !BucketStore.isBucket(stateDir) {
            throw ValidationError("--cache-read-only is for a store in a bucket: give --state-dir s3://BUCKET/PREFIX")
        }
        if noCache && (keepOutputs || noRestore) {
            throw ValidationError("--keep-outputs and --no-restore are about the store; they exclude --no-cache")
        }
        if noCache && (force || !rerun.isEmpty) {
            throw ValidationError("--no-cache runs everything already; it excludes --force and --rerun")
        }
        if noCache && checkSources {
            throw ValidationError("--check-sources asks about what the store recorded; it excludes --no-cache")
        }
    }

    /// The session options these flags ask for; the session's warnings and notes go to stderr.
    func sessionOptions(run: RunOptions, terminal: Terminal, quiet: Bool = false) -> SessionOptions {
        var options = SessionOptions(
            stateDirectory: stateDir, usesStore: !noCache, force: force,
            rerun: Set(rerun.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }),
            run: run
        ) { diagnostic in
            switch diagnostic.severity {
            case .note where !quiet: terminal.error(diagnostic.message + "\n")
            case .note: break
            case .warning, .error: terminal.error("\(diagnostic.severity): \(diagnostic.message)\n")
            }
        }
        options.checkSources = checkSources
        options.keepsWrittenFiles = keepOutputs
        options.restoresWrittenFiles = !noRestore
        options.cacheReadOnly = cacheReadOnly
        return options
    }

    /// A plan with its lists made at run time as the store last recorded them, for `explain`.
    func withRecordedLists(_ plan: Plan, terminal: Terminal) throws -> Plan {
        let session = RunSession(plan: plan, options: sessionOptions(run: RunOptions(), terminal: terminal))
        return try terminal.exitOnFailure { () throws(SessionError) in try session.planWithRecordedLists() }
    }

    /// The decisions for a plan against the store, read without locking (`explain`); `nil` with `--no-cache`.
    func decide(_ plan: Plan, optimize: Bool, terminal: Terminal) throws -> (
        storeDirectory: String, decisions: UpToDate
    )? {
        let session = RunSession(
            plan: plan, options: sessionOptions(run: RunOptions(optimize: optimize), terminal: terminal))
        return try terminal.exitOnFailure { () throws(SessionError) in try session.decide() }
    }
}

extension Terminal {
    /// Runs a step of a session, printing its error and exiting with flowrun's code for it: 1 when shards or
    /// their values are missing (run them again), 2 when the request or the store stops anything from running.
    func exitOnFailure<T>(_ step: () throws(SessionError) -> T) throws -> T {
        do {
            return try step()
        } catch {
            self.error("error: \(error)\n")
            switch error.code {
            case .shardsMissing, .valuesMissing, .shardReportNotWritten: throw ExitCode(1)
            default: throw ExitCode(2)
            }
        }
    }

    /// A dry run, `flowrun validate` and `flowrun run --dry-run` alike: the plan of the session's part and,
    /// with a store, what will run and why; `detail` (``PlanDetail/nodes`` with `--verbose`) says how much,
    /// `quiet` prints the verdict alone.
    func printPreview(of session: RunSession, detail: PlanDetail, quiet: Bool) throws {
        let preview = try exitOnFailure { () throws(SessionError) in try session.preview() }
        let examples =
            detail == .nodes ? UpToDatePrinter.examplesPerCause.verbose : UpToDatePrinter.examplesPerCause.brief
        print(
            PlanPrinter(plan: preview.plan, listSizes: preview.recordedListSizes, detail: detail, quiet: quiet)
                .render(upToDate: quiet ? nil : UpToDatePrinter(preview)?.render(examples: examples)))
    }
}
