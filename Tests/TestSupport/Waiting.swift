/// Polls `condition` every 5 ms until it holds or `timeout` passes.
///
/// Suspends rather than blocks: a test that blocks its thread takes one of the few threads libdispatch runs
/// on a 2-core machine, and when all are blocked, libdispatch adds threads only after about a second — so
/// operations, URLSession queues and timers all stall and timing assertions fail.
/// - Returns: Whether the condition held in time.
package func waitUntil(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
