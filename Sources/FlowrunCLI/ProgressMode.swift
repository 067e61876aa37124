import ArgumentParser
import FlowKit

/// How a run shows its progress (`--progress`): a live line on a terminal, plain lines for a log, or nothing.
enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
    /// The live line when stderr is a terminal, plain lines otherwise.
    case auto
    /// The live line, redrawn in place: carriage returns and escape codes.
    case tty
    /// A plain line at each interval and at each task's end, for a CI log or a file.
    case plain
    /// Nothing until the summary.
    case none

    /// The environment variable that gives the default of `--progress` (a CI's settings can turn it off).
    static let environmentVariable = "FLOWRUN_PROGRESS"

    /// The mode `auto` stands for, on this terminal; the others stand for themselves.
    func resolved(stderrIsTTY: Bool) -> ProgressMode {
        self == .auto ? (stderrIsTTY ? .tty : .plain) : self
    }

    /// The default interval between two plain lines.
    static let defaultInterval = Duration.seconds(15)
}

/// `--progress-interval`'s value: a duration as workflows write them (`15s`, `1m`), from 1 s to 1 h.
func parseProgressInterval(_ text: String) throws -> Duration {
    guard let interval = Duration.parse(workflowText: text), interval >= .seconds(1), interval <= .seconds(3600)
    else {
        // argument-parser names the option and the value before this.
        throw ValidationError("expected a duration from 1s to 1h, such as 15s")
    }
    return interval
}

/// What shows a run's progress while it runs: ``ProgressLine`` or ``ProgressLog``.
protocol RunProgress: Sendable {
    /// Counts `runner`'s nodes from now on; the first runner starts the display.
    func add(_ runner: Runner)
    /// Ends the display before the summary.
    func stop()
}

extension ProgressLine: RunProgress {}
extension ProgressLog: RunProgress {}
