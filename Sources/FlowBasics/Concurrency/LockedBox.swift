import Foundation

/// A value and the lock that protects it, for state that is not `Sendable` itself (a `DispatchSource`, a
/// `URLSessionTask`), after swift-nio's `NIOLockedValueBox`.
///
/// Prefer `Mutex` for `Sendable` state; use this where `Mutex` would need the value to be `sending`.
package final class LockedBox<Value>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    /// Creates a box holding a value.
    @inlinable package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @inlinable package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
