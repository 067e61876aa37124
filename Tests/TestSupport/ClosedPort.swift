#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback port that refuses connections for as long as this value lives, for "connection refused" tests.
///
/// The port is bound but not listening, so a connection attempt is answered with a reset, and no other test
/// (or server) can take the port meanwhile — unlike a port that was merely closed, which a parallel test
/// could bind again before the connection attempt.
package final class ClosedPort: Sendable {
    /// The port number.
    package let port: UInt16
    private let fd: Int32

    /// Reserves a port.
    /// - Throws: An error naming the failed socket call.
    package init() throws {
        (fd, port) = try POSIXSocket.bindLoopback(listening: nil)
    }

    deinit { close(fd) }

    /// The URL of a path on this port, e.g. `http://127.0.0.1:54321/x`.
    package func urlString(_ path: String) -> String {
        "http://127.0.0.1:\(port)" + (path.hasPrefix("/") ? path : "/" + path)
    }
}
