/// When a task runs, given how its dependencies ended: `runIf:` as written.
package enum RunCondition: String, Sendable, CaseIterable {
    /// Every dependency succeeded (the default).
    case success
    /// Every dependency ended, however: for cleanup and notifications. Not after the run is cancelled.
    case always
    /// Every dependency ran to the end, succeeded or failed; none was skipped or cancelled.
    case allDone
    /// Every dependency ended and at least one failed: for failure notifications.
    case anyFailed
}
